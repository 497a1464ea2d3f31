// cc_chef: makes chef's folders, writes the validation key, client.rb (from cloud-init's template) and firstboot.json,
// installs chef (packages, gems, omnibus) and runs chef-client.
import { posix } from 'node:path';
import { isRecord } from './support/config-shapes';
import { makeHeader } from './support/cloud-header';
import { readSystemTemplate, renderTemplateText, templatesDirSetting } from './support/cloud-template';
import { configModule } from './support/config-module';
import { OwnParser, readConfigValue, strUnlessNull } from './support/config-readers';
import { installPackages } from './support/install-packages';
import { pythonJsonDumps } from './support/python-json';
import { RefusedSetting } from './support/refused-setting';
import { runInstallerScript } from './support/run-installer-script';
import { ModuleError, type Module, type ModuleContext } from './module';

const MODULE = 'chef';
const CHEF_DIRS = [
  '/etc/chef',
  '/var/log/chef',
  '/var/lib/chef',
  '/var/chef/cache',
  '/var/chef/backup',
  '/var/run/chef',
];
/** 25.1 moved the cache and backups under /var/chef, and moves what an older cloud-init left in the old places. */
const CHEF_DIR_MIGRATION: Array<[string, string]> = [
  ['/var/cache/chef', '/var/chef/cache'],
  ['/var/backups/chef', '/var/chef/backup'],
];
const REQUIRED_DIRS = ['/etc/chef'];
export const OMNIBUS_URL = 'https://www.chef.io/chef/install.sh';
const OMNIBUS_URL_RETRIES = 5;
const VALIDATION_PEM = '/etc/chef/validation.pem';
const FIRSTBOOT_PATH = '/etc/chef/firstboot.json';
const CLIENT_RB = '/etc/chef/client.rb';
const CHEF_EXEC = '/usr/bin/chef-client';
const EXEC_DEFAULT_ARGS = ['-d', '-i', '1800', '-s', '20'];
const RUBY_VERSION_DEFAULT = '1.8';

/** The template's parameters and their defaults, in cloud-init's CHEF_RB_TPL_DEFAULTS order. */
const TPL_DEFAULTS: { readonly [param: string]: string | boolean | null } = {
  ssl_verify_mode: ':verify_none',
  log_level: ':info',
  log_location: '/var/log/chef/client.log',
  validation_key: VALIDATION_PEM,
  validation_cert: null,
  client_key: '/etc/chef/client.pem',
  json_attribs: FIRSTBOOT_PATH,
  file_cache_path: '/var/chef/cache',
  file_backup_path: '/var/chef/backup',
  pid_file: '/var/run/chef/client.pid',
  show_time: true,
  encrypted_data_bag_secret: null,
};
const BOOL_KEYS = new Set(['show_time']);
const PATH_KEYS = new Set([
  'log_location',
  'validation_key',
  'client_key',
  'file_cache_path',
  'json_attribs',
  'pid_file',
  'encrypted_data_bag_secret',
]);
const TPL_KEYS = new Set([
  ...Object.keys(TPL_DEFAULTS),
  'server_url',
  'node_name',
  'environment',
  'validation_name',
  'chef_license',
]);

/** A value for the template: a key's str() (get_cfg_option_str), show_time's get_cfg_option_bool, null kept. */
type TemplateValue = string | boolean | null;

/** firstboot.json's attributes: run_list, then initial_attributes' keys, as given. */
interface ChefAttributes {
  readonly [attribute: string]: unknown;
}

/** chef as 25.1's handle reads it (a null setting is as if absent, as kiln has read it). */
export interface ChefSettings {
  /** The folders to make (none given: CHEF_DIRS): a list's items or a single string. */
  readonly directories: readonly string[];
  readonly validation_key?: string;
  /** A Python-true validation_cert's text ('system': the key is on disk already). */
  readonly validation_cert?: string;
  /** get_template_params' keys given, in their order, each as it converts it. */
  readonly template: ReadonlyMap<string, TemplateValue>;
  /** The other keys, which get_template_params skips (and logs), in their order. */
  readonly notTemplate: readonly string[];
  readonly firstboot_path?: string;
  /** firstboot.json's attributes; an initial_attributes that is no mapping fails the module as it writes the file. */
  readonly firstboot: ChefAttributes | RefusedSetting;
  readonly force_install: boolean;
  readonly exec?: boolean;
  readonly install_type?: string;
  readonly ruby_version?: string;
  readonly version?: string;
  readonly omnibus_url?: string;
  readonly omnibus_version?: string;
  /** A retry count that is no integer fails the module where the omnibus install reads it. */
  readonly omnibus_url_retries?: number | RefusedSetting;
  /** chef-client's arguments: a list's items or one string; another type is warned about when chef-client runs. */
  readonly exec_arguments?: readonly string[] | RefusedSetting;
  readonly delete_validation_post_exec: boolean;
  /** Where client.rb is written (get_cfg_option_str's config_path, CHEF_RB_PATH by default). */
  readonly config_path?: string;
}

/** get_cfg_option_bool of KEY of CHEF, DFLT when absent. */
function optionalBool(chef: { readonly [key: string]: unknown }, key: string, dflt: boolean): boolean {
  return Object.hasOwn(chef, key) ? (readConfigValue('bool', chef[key]) as boolean) : dflt;
}

/** get_template_params' conversion of a template key's VALUE. */
function templateValue(key: string, value: unknown): TemplateValue {
  if (value === null) return null;
  return (BOOL_KEYS.has(key) ? readConfigValue('bool', value) : readConfigValue('str', value)) as TemplateValue;
}

/** firstboot.json's attributes: run_list, then each key of initial_attributes, which must be a mapping. */
function readFirstboot(chef: { readonly [key: string]: unknown }): ChefAttributes | RefusedSetting {
  const attributes: { [attribute: string]: unknown } = {};
  if (Object.hasOwn(chef, 'run_list')) attributes.run_list = chef.run_list;
  if (Object.hasOwn(chef, 'initial_attributes')) {
    if (!isRecord(chef.initial_attributes)) return new RefusedSetting('chef.initial_attributes must be a mapping');
    Object.assign(attributes, chef.initial_attributes);
  }
  return attributes;
}

/** omnibus_url_retries as install_chef reads it: an integer (a numeric string too), else refused. */
function readRetries(value: unknown): number | RefusedSetting | undefined {
  if (value === undefined || value === null) return undefined;
  const retries = Number(value);
  return Number.isInteger(retries)
    ? retries
    : new RefusedSetting(`chef.omnibus_url_retries must be an integer, not ${JSON.stringify(value)}`);
}

/** exec_arguments as run_chef reads it: a list (each item its text) or one string; another type is refused. */
function readExecArguments(value: unknown): readonly string[] | RefusedSetting {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string') return [value];
  return new RefusedSetting("Unknown type provided for chef 'exec_arguments' expected list, tuple, or string");
}

/**
 * chef as 25.1's handle reads it: a mapping (else the module fails), each setting read as handle and its helpers
 * read it. Upstream reads keys its schema lacks (exec_arguments, delete_validation_post_exec, ruby_version, version)
 * and any other key only to skip it; values it cannot use fail or are warned about where it uses them.
 */
function readChef(value: unknown): ChefSettings {
  if (!isRecord(value)) throw new ModuleError(MODULE, `'chef' must be a mapping, not ${JSON.stringify(value)}`);
  const dirs = value.directories;
  const template = new Map<string, TemplateValue>();
  const notTemplate: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (TPL_KEYS.has(key)) template.set(key, templateValue(key, v));
    else notTemplate.push(key);
  }
  return {
    directories: Array.isArray(dirs) ? dirs.map(String) : typeof dirs === 'string' ? [dirs] : [],
    ...(Object.hasOwn(value, 'validation_key')
      ? { validation_key: readConfigValue('str', value.validation_key) as string }
      : {}),
    validation_cert: readConfigValue('truthy-str', value.validation_cert) as string | undefined,
    template,
    notTemplate,
    firstboot_path: strUnlessNull(value.firstboot_path),
    firstboot: readFirstboot(value),
    force_install: optionalBool(value, 'force_install', false),
    ...(Object.hasOwn(value, 'exec') ? { exec: optionalBool(value, 'exec', false) } : {}),
    install_type: strUnlessNull(value.install_type),
    ruby_version: strUnlessNull(value.ruby_version),
    version: strUnlessNull(value.version),
    omnibus_url: strUnlessNull(value.omnibus_url),
    omnibus_version: strUnlessNull(value.omnibus_version),
    omnibus_url_retries: readRetries(value.omnibus_url_retries),
    ...(Object.hasOwn(value, 'exec_arguments') ? { exec_arguments: readExecArguments(value.exec_arguments) } : {}),
    delete_validation_post_exec: optionalBool(value, 'delete_validation_post_exec', false),
    config_path: strUnlessNull(value.config_path),
  };
}

/** cloud-init's get_template_params: the defaults, overridden by the template keys of the chef config. */
export function templateParams(
  iid: string,
  chef: Pick<ChefSettings, 'template' | 'notTemplate'>,
  ctx: ModuleContext,
  now = new Date(),
): { [param: string]: TemplateValue } {
  for (const key of chef.notTemplate) ctx.log.debug(`Skipping unknown chef template key '${key}'`);
  const params: { [param: string]: TemplateValue } = { ...TPL_DEFAULTS, ...Object.fromEntries(chef.template) };
  for (const k of ['server_url', 'validation_name'])
    if (!chef.template.has(k)) throw new ModuleError(MODULE, `chef.${k} is required to render ${CLIENT_RB}`);
  params.generated_by = makeHeader(now);
  params.node_name = chef.template.get('node_name') ?? iid;
  params.environment = chef.template.get('environment') ?? '_default';
  return params;
}

async function runChecked(ctx: ModuleContext, argv: string[]): Promise<void> {
  const r = await ctx.platform.run(argv, { allowFailure: true });
  if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
  if (r.code !== 0) throw new ModuleError(MODULE, `'${argv.join(' ')}' exited with code ${r.code}`);
}

/** install_chef: returns whether chef-client should run afterwards. */
async function installChef(ctx: ModuleContext, chef: ChefSettings): Promise<boolean> {
  const type = chef.install_type ?? 'packages';
  if (type === 'gems') {
    const ruby = chef.ruby_version ?? RUBY_VERSION_DEFAULT;
    const version = chef.version;
    await installPackages(ctx, MODULE, [
      `ruby${ruby}`,
      `ruby${ruby}-dev`,
      ...(ruby === '1.8' ? ['libopenssl-ruby1.8', 'rubygems1.8'] : []),
    ]);
    if (!(await ctx.platform.exists('/usr/bin/gem'))) await ctx.platform.symlink(`/usr/bin/gem${ruby}`, '/usr/bin/gem');
    if (!(await ctx.platform.exists('/usr/bin/ruby')))
      await ctx.platform.symlink(`/usr/bin/ruby${ruby}`, '/usr/bin/ruby');
    await runChecked(ctx, [
      '/usr/bin/gem',
      'install',
      'chef',
      ...(version ? [`-v ${version}`] : []),
      '--no-ri',
      '--no-rdoc',
      '--bindir',
      '/usr/bin',
      '-q',
    ]);
    return chef.exec ?? true;
  }
  if (type === 'packages') await installPackages(ctx, MODULE, ['chef']);
  else if (type === 'omnibus') {
    const version = chef.omnibus_version;
    const retries = chef.omnibus_url_retries ?? OMNIBUS_URL_RETRIES;
    if (retries instanceof RefusedSetting) throw new ModuleError(MODULE, retries.message);
    await runInstallerScript(
      ctx,
      MODULE,
      chef.omnibus_url ?? OMNIBUS_URL,
      retries,
      'chef-omnibus-install',
      version ? ['-v', version] : [],
    );
  } else {
    ctx.recoverable('WARNING', `Unknown chef install type '${type}'`);
    return false;
  }
  return chef.exec ?? false;
}

/** migrate_chef_config_dirs: each entry of an old folder moved into the new one, unless the new one has it already. */
async function migrateChefDirs(ctx: ModuleContext): Promise<void> {
  for (const [from, to] of CHEF_DIR_MIGRATION) {
    if (!(await ctx.platform.exists(from))) continue;
    for (const name of await ctx.platform.listDir(from)) {
      if (await ctx.platform.exists(posix.join(to, name))) {
        ctx.log.debug(`Ignoring migration of ${posix.join(from, name)}. File already exists in ${to}.`);
        continue;
      }
      ctx.log.debug(`Moving ${posix.join(from, name)} to ${to}.`);
      await ctx.platform.run(['mv', posix.join(from, name), to]);
    }
  }
}

export const chefModule: Module = configModule({
  name: 'chef',
  stage: 'final',
  frequency: 'always',
  distros: 'all',
  activateBy: ['chef'],
  // 25.1's module reads keys its schema rejects (exec_arguments, delete_validation_post_exec, ruby_version, version)
  // and values of other types than the schema's (str()'d, or refused where it uses them).
  configKeys: { chef: new OwnParser(readChef), system_info: templatesDirSetting },
  async run(ctx, cfg): Promise<void> {
    const chef = cfg.chef;
    if (chef === undefined) {
      ctx.log.debug("Skipping module named chef, no 'chef' key in configuration");
      return;
    }
    const dirs = chef.directories.length > 0 ? chef.directories : CHEF_DIRS;
    for (const d of [...dirs, ...REQUIRED_DIRS]) await ctx.platform.mkdir(d);
    await migrateChefDirs(ctx);

    const vkeyPath = chef.validation_key ?? VALIDATION_PEM;
    const vcert = chef.validation_cert;
    if (vcert !== undefined) {
      if (vcert !== 'system') await ctx.platform.writeFile(vkeyPath, vcert, { mode: 0o644 });
      else if (!(await ctx.platform.exists(vkeyPath)))
        ctx.recoverable(
          'WARNING',
          `chef validation_cert provided as 'system', but validation_key path '${vkeyPath}' does not exist.`,
        );
    }

    const clientRb = chef.config_path ?? CLIENT_RB;
    const template = await readSystemTemplate(ctx.platform, { system_info: cfg.system_info }, 'chef_client.rb');
    if (template !== undefined) {
      const params = templateParams(ctx.instance?.instanceId ?? '', chef, ctx);
      for (const [k, v] of Object.entries(params))
        if (PATH_KEYS.has(k) && v) await ctx.platform.mkdir(posix.dirname(String(v)));
      await ctx.platform.writeFile(clientRb, renderTemplateText(template, params), { mode: 0o644 });
    } else ctx.recoverable('WARNING', `No template found, not rendering to ${clientRb}`);

    const fbPath = chef.firstboot_path ?? FIRSTBOOT_PATH;
    if (!fbPath) ctx.log.info('First boot path empty, not writing first boot json file');
    else {
      if (chef.firstboot instanceof RefusedSetting) throw new ModuleError(MODULE, chef.firstboot.message);
      await ctx.platform.writeFile(fbPath, pythonJsonDumps(chef.firstboot), { mode: 0o644 });
    }

    const st = await ctx.platform.stat(CHEF_EXEC);
    const installed = st !== undefined && st.type === 'file' && (st.mode & 0o111) !== 0;
    const run = !installed || chef.force_install ? await installChef(ctx, chef) : (chef.exec ?? false);
    if (!run) return;
    ctx.log.debug('Running chef-client');
    const argv = [CHEF_EXEC];
    const args = chef.exec_arguments ?? EXEC_DEFAULT_ARGS;
    if (args instanceof RefusedSetting) {
      ctx.recoverable('WARNING', args.message);
      argv.push(...EXEC_DEFAULT_ARGS);
    } else argv.push(...args);
    await runChecked(ctx, argv);
    if (chef.delete_validation_post_exec && (await ctx.platform.exists(VALIDATION_PEM)))
      await ctx.platform.remove(VALIDATION_PEM);
  },
});
