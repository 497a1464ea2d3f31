// cc_chef: makes chef's folders, writes the validation key, client.rb (from cloud-init's template) and firstboot.json,
// installs chef (packages, gems, omnibus) and runs chef-client.
import { posix } from 'node:path';
import { isRecord } from './support/config-shapes';
import { makeHeader } from './support/cloud-header';
import { readSystemTemplate, renderTemplateText } from './support/cloud-template';
import { installPackages } from './support/install-packages';
import { pythonJsonDumps } from './support/python-json';
import { pyStr } from '../util/python-str';
import { runInstallerScript } from './support/run-installer-script';
import { ModuleError, type CloudConfig, type Module, type ModuleContext } from './module';

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
const TPL_DEFAULTS: Record<string, unknown> = {
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

function truthy(v: unknown): boolean {
  return v === true || ['true', '1', 'on', 'yes'].includes(String(v).toLowerCase());
}

function optBool(cfg: Record<string, unknown>, key: string, dflt: boolean): boolean {
  return key in cfg ? truthy(cfg[key]) : dflt;
}

function optStr(cfg: Record<string, unknown>, key: string, dflt?: string): string | undefined {
  const v = cfg[key];
  return v === undefined || v === null ? dflt : pyStr(v);
}

/** cloud-init's get_template_params: the defaults, overridden by the known keys of the chef config. */
export function templateParams(
  iid: string,
  ccfg: Record<string, unknown>,
  ctx: ModuleContext,
  now = new Date(),
): Record<string, unknown> {
  const params: Record<string, unknown> = { ...TPL_DEFAULTS };
  for (const [k, v] of Object.entries(ccfg)) {
    if (!TPL_KEYS.has(k)) {
      ctx.log.debug(`Skipping unknown chef template key '${k}'`);
      continue;
    }
    params[k] = v === null ? null : BOOL_KEYS.has(k) ? truthy(v) : pyStr(v);
  }
  for (const k of ['server_url', 'validation_name'])
    if (!(k in ccfg)) throw new ModuleError(MODULE, `chef.${k} is required to render ${CLIENT_RB}`);
  params.generated_by = makeHeader(now);
  params.node_name = optStr(ccfg, 'node_name', iid);
  params.environment = optStr(ccfg, 'environment', '_default');
  params.server_url = ccfg.server_url;
  params.validation_name = ccfg.validation_name;
  return params;
}

async function runChecked(ctx: ModuleContext, argv: string[]): Promise<void> {
  const r = await ctx.platform.run(argv, { allowFailure: true });
  if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
  if (r.code !== 0) throw new ModuleError(MODULE, `'${argv.join(' ')}' exited with code ${r.code}`);
}

/** install_chef: returns whether chef-client should run afterwards. */
async function installChef(ctx: ModuleContext, ccfg: Record<string, unknown>): Promise<boolean> {
  const type = optStr(ccfg, 'install_type', 'packages');
  if (type === 'gems') {
    const ruby = optStr(ccfg, 'ruby_version', RUBY_VERSION_DEFAULT) as string;
    const version = optStr(ccfg, 'version');
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
    return optBool(ccfg, 'exec', true);
  }
  if (type === 'packages') await installPackages(ctx, MODULE, ['chef']);
  else if (type === 'omnibus') {
    const version = optStr(ccfg, 'omnibus_version');
    const retries =
      ccfg.omnibus_url_retries === undefined || ccfg.omnibus_url_retries === null
        ? OMNIBUS_URL_RETRIES
        : Number(ccfg.omnibus_url_retries);
    if (!Number.isInteger(retries))
      throw new ModuleError(
        MODULE,
        `chef.omnibus_url_retries must be an integer, not ${JSON.stringify(ccfg.omnibus_url_retries)}`,
      );
    await runInstallerScript(
      ctx,
      MODULE,
      optStr(ccfg, 'omnibus_url', OMNIBUS_URL) as string,
      retries,
      'chef-omnibus-install',
      version ? ['-v', version] : [],
    );
  } else {
    ctx.recoverable('WARNING', `Unknown chef install type '${type}'`);
    return false;
  }
  return optBool(ccfg, 'exec', false);
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

export const chefModule: Module = {
  name: 'chef',
  stage: 'final',
  frequency: 'always',
  distros: 'all',
  activateBy: ['chef'],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    if (!('chef' in cfg)) {
      ctx.log.debug("Skipping module named chef, no 'chef' key in configuration");
      return;
    }
    const ccfg = cfg.chef;
    if (!isRecord(ccfg)) throw new ModuleError(MODULE, `'chef' must be a mapping, not ${JSON.stringify(ccfg)}`);
    const listed = Array.isArray(ccfg.directories)
      ? ccfg.directories.map(String)
      : typeof ccfg.directories === 'string'
        ? [ccfg.directories]
        : [];
    for (const d of [...(listed.length ? listed : CHEF_DIRS), ...REQUIRED_DIRS]) await ctx.platform.mkdir(d);
    await migrateChefDirs(ctx);

    const vkeyPath = 'validation_key' in ccfg ? pyStr(ccfg.validation_key) : VALIDATION_PEM;
    const vcert = ccfg.validation_cert;
    if (vcert) {
      if (vcert !== 'system') await ctx.platform.writeFile(vkeyPath, pyStr(vcert), { mode: 0o644 });
      else if (!(await ctx.platform.exists(vkeyPath)))
        ctx.recoverable(
          'WARNING',
          `chef validation_cert provided as 'system', but validation_key path '${vkeyPath}' does not exist.`,
        );
    }

    const template = await readSystemTemplate(ctx.platform, cfg, 'chef_client.rb');
    if (template !== undefined) {
      const params = templateParams(ctx.instance?.instanceId ?? '', ccfg, ctx);
      for (const [k, v] of Object.entries(params))
        if (PATH_KEYS.has(k) && v) await ctx.platform.mkdir(posix.dirname(String(v)));
      await ctx.platform.writeFile(CLIENT_RB, renderTemplateText(template, params), { mode: 0o644 });
    } else ctx.recoverable('WARNING', `No template found, not rendering to ${CLIENT_RB}`);

    const fbPath = optStr(ccfg, 'firstboot_path', FIRSTBOOT_PATH);
    if (!fbPath) ctx.log.info('First boot path empty, not writing first boot json file');
    else {
      const initial: Record<string, unknown> = {};
      if ('run_list' in ccfg) initial.run_list = ccfg.run_list;
      if ('initial_attributes' in ccfg) {
        if (!isRecord(ccfg.initial_attributes))
          throw new ModuleError(MODULE, 'chef.initial_attributes must be a mapping');
        Object.assign(initial, ccfg.initial_attributes);
      }
      await ctx.platform.writeFile(fbPath, pythonJsonDumps(initial), { mode: 0o644 });
    }

    const st = ctx.platform.stat ? await ctx.platform.stat(CHEF_EXEC) : undefined;
    const installed = st !== undefined && st.type === 'file' && (st.mode & 0o111) !== 0;
    const run =
      !installed || optBool(ccfg, 'force_install', false) ? await installChef(ctx, ccfg) : optBool(ccfg, 'exec', false);
    if (!run) return;
    ctx.log.debug('Running chef-client');
    const argv = [CHEF_EXEC];
    const ea = ccfg.exec_arguments;
    if (!('exec_arguments' in ccfg)) argv.push(...EXEC_DEFAULT_ARGS);
    else if (Array.isArray(ea)) argv.push(...ea.map(String));
    else if (typeof ea === 'string') argv.push(ea);
    else {
      ctx.recoverable('WARNING', "Unknown type provided for chef 'exec_arguments' expected list, tuple, or string");
      argv.push(...EXEC_DEFAULT_ARGS);
    }
    await runChecked(ctx, argv);
    if (optBool(ccfg, 'delete_validation_post_exec', false) && (await ctx.platform.exists(VALIDATION_PEM)))
      await ctx.platform.remove(VALIDATION_PEM);
  },
};
