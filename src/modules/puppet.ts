// cc_puppet: installs puppet (distro packages or the AIO script), merges `conf` into puppet.conf, writes
// csr_attributes.yaml, enables, runs and starts the agent.
import { posix } from 'node:path';
import { pyyamlDump } from '../config/pyyaml-dump';
import { configModule } from './support/config-module';
import { OwnParser, readConfigValue, strUnlessNull } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { installPackages, updatePackageSources } from './support/install-packages';
import { manageService } from './support/service-control';
import { CommandError } from '../util/command-error';
import { parsePyConfig, setPyOption, stringifyPyConfig } from './support/python-config-parser';
import { RefusedSetting } from './support/refused-setting';
import { runInstallerScript } from './support/run-installer-script';
import { pyStr } from '../util/python-str';
import { ModuleError, type Module, type ModuleContext } from './module';

const MODULE = 'puppet';
export const AIO_INSTALL_URL = 'https://raw.githubusercontent.com/puppetlabs/install-puppet/main/install.sh';
const AGENT_DEFAULT_ARGS = ['--test'];

/** A section of puppet.conf to set: each option with its value's text (certname's before %f and %i are expanded). */
interface PuppetConfSection {
  readonly section: string;
  readonly options: ReadonlyArray<readonly [option: string, value: string]>;
}

/** puppet.conf's ca_cert entry: the CA certificate, written to certs/ca.pem under ssl_dir. */
interface PuppetCaCert {
  readonly caCert: string;
}

/**
 * puppet as 25.1's handle reads it (get_cfg_option_bool and _str, a null as if absent); each absent setting has
 * handle's default.
 */
export interface PuppetSettings {
  readonly install?: boolean;
  readonly version?: string;
  readonly collection?: string;
  readonly install_type?: string;
  readonly cleanup?: boolean;
  readonly exec?: boolean;
  readonly start_service?: boolean;
  readonly aio_install_url?: string;
  readonly package_name?: string;
  readonly conf_file?: string;
  readonly ssl_dir?: string;
  readonly csr_attributes_path?: string;
  /** puppet.conf's entries in their order; conf or a section that is not a mapping fails the module where it is set. */
  readonly conf?: ReadonlyArray<PuppetConfSection | PuppetCaCert | RefusedSetting> | RefusedSetting;
  /** csr_attributes.yaml's text: yaml.dump of csr_attributes as given. */
  readonly csr_attributes?: string;
  /** puppet agent's arguments (a list's items or a string's words); another type is warned about when it runs. */
  readonly exec_args?: readonly string[] | RefusedSetting;
}

/** puppet.conf as handle sets it: each section name (ca_cert: the CA certificate) and its options, in order. */
function readConf(conf: unknown): ReadonlyArray<PuppetConfSection | PuppetCaCert | RefusedSetting> | RefusedSetting {
  if (!isRecord(conf)) return new RefusedSetting("'puppet.conf' must be a mapping of sections");
  return Object.entries(conf).map(([section, value]) => {
    if (section === 'ca_cert') return { caCert: String(value) };
    if (!isRecord(value)) return new RefusedSetting(`puppet.conf.${section} must be a mapping of settings`);
    // The option's value is written as its str(); handle replaces in certname's text.
    const options = Object.entries(value).map(
      ([option, v]) => [option, option === 'certname' ? String(v) : pyStr(v)] as const,
    );
    return { section, options };
  });
}

/** exec_args as handle reads it: a list (each item its text) or a string's words; another type is refused. */
function readExecArgs(value: unknown): readonly string[] | RefusedSetting {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  return new RefusedSetting("Unknown type provided for puppet 'exec_args' expected list, tuple, or string");
}

/**
 * puppet as 25.1's handle reads it: a mapping (else the module fails) with the keys it reads. Upstream sets any
 * section of conf (its schema only main, server, agent, user and ca_cert) and str()s values of other types; conf
 * and exec_args it cannot use fail or are warned about where it uses them.
 */
function readPuppet(value: unknown): PuppetSettings {
  if (!isRecord(value)) throw new ModuleError(MODULE, `'puppet' must be a mapping, not ${JSON.stringify(value)}`);
  return readConfigValue(
    {
      install: 'bool',
      version: strUnlessNull,
      collection: strUnlessNull,
      install_type: strUnlessNull,
      cleanup: 'bool',
      exec: 'bool',
      start_service: 'bool',
      aio_install_url: strUnlessNull,
      package_name: strUnlessNull,
      conf_file: strUnlessNull,
      ssl_dir: strUnlessNull,
      csr_attributes_path: strUnlessNull,
      conf: readConf,
      csr_attributes: (attributes: unknown) => pyyamlDump(attributes, true, 2),
      exec_args: readExecArgs,
    },
    value,
  ) as PuppetSettings;
}

async function run(ctx: ModuleContext, argv: string[]): Promise<string> {
  const r = await ctx.platform.run(argv, { allowFailure: true });
  if (r.code !== 0)
    throw new ModuleError(
      MODULE,
      `'${argv.join(' ')}' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`,
    );
  return r.stdout;
}

/** `puppet config print SETTING`: where the installed puppet keeps its files. */
async function configValue(ctx: ModuleContext, bin: string, setting: string): Promise<string> {
  return (await run(ctx, [bin, 'config', 'print', setting])).replace(/\s+$/, '');
}

/** socket.getfqdn(): this host's name, completed from the target's /etc/hosts when a line lists it with a dot. */
async function fqdn(ctx: ModuleContext): Promise<string> {
  const name = ctx.platform.uname().nodename;
  const hosts = (await ctx.platform.readTextIfExists('/etc/hosts')) ?? '';
  for (const line of hosts.split('\n')) {
    const names = line.replace(/#.*/, '').trim().split(/\s+/).slice(1);
    if (names.includes(name)) return names.find((n) => n.includes('.')) ?? name;
  }
  return name;
}

/** The service (and package) names 25.1 tries, in order: the newer puppet-agent first, then puppet. */
const PUPPET_NAMES = ['puppet-agent', 'puppet'];

/** _manage_puppet_services: ACTION on the first puppet service the service manager takes; none is a warning. */
async function managePuppetServices(ctx: ModuleContext, action: 'enable' | 'start'): Promise<void> {
  for (const name of PUPPET_NAMES) {
    try {
      await manageService(ctx, action, `${name}.service`);
      return;
    } catch (err) {
      if (!(err instanceof CommandError)) throw err;
    }
  }
  ctx.recoverable('WARNING', `Could not '${action}' any of the following services: ${PUPPET_NAMES.join(', ')}`);
}

/**
 * 25.1 without a package_name: the first of puppet-agent and puppet the package manager can install. On the Debian
 * family a name apt does not know (`apt-cache pkgnames`, after the index refresh) is passed over, as apt's
 * PackageInstallerError is there; elsewhere the first name's install is tried and its failure ends the module.
 */
async function installFirstAvailable(ctx: ModuleContext, version: string | undefined): Promise<string | undefined> {
  let known: Set<string> | undefined;
  if (ctx.distro.family === 'debian') {
    await updatePackageSources(ctx, MODULE);
    const r = await ctx.platform.run(['apt-cache', 'pkgnames']);
    known = new Set(r.stdout.split('\n'));
  }
  for (const name of PUPPET_NAMES) {
    if (known && !known.has(name)) continue;
    await installPackages(ctx, MODULE, [packageSpec(ctx, name, version)]);
    return name;
  }
  return undefined;
}

/** A package with its version, as the family's package manager spells it (cloud-init's expand_package_list). */
function packageSpec(ctx: ModuleContext, name: string, version: string | undefined): string {
  if (!version) return name;
  return `${name}${['debian', 'alpine'].includes(ctx.distro.family) ? '=' : '-'}${version}`;
}

export const puppetModule: Module = configModule({
  name: 'puppet',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['puppet'],
  // 25.1's module sets conf sections its schema rejects and str()s values of other types than the schema's.
  configKeys: { puppet: new OwnParser(readPuppet) },
  async run(ctx, cfg): Promise<void> {
    const puppet = cfg.puppet;
    if (puppet === undefined) {
      ctx.log.debug("Skipping module named puppet, no 'puppet' configuration found");
      return;
    }
    const install = puppet.install ?? true;
    const version = puppet.version;
    const collection = puppet.collection;
    const installType = puppet.install_type ?? 'packages';
    const cleanup = puppet.cleanup ?? true;
    let exec = puppet.exec ?? false;
    const startService = puppet.start_service ?? true;
    const aioUrl = puppet.aio_install_url ?? AIO_INSTALL_URL;
    // AIO and distro packages keep puppet in different places and run it as different users.
    const aio = installType === 'aio';
    const puppetUser = aio ? 'root' : 'puppet';
    const bin = aio ? '/opt/puppetlabs/bin/puppet' : 'puppet';
    const packageName = puppet.package_name ?? (aio ? 'puppet-agent' : undefined);

    if (!install && version)
      ctx.recoverable('WARNING', 'Puppet install set to false but version supplied, doing nothing.');
    else if (install) {
      ctx.log.debug(`Attempting to install puppet ${version ?? 'latest'} from ${installType}`);
      if (installType === 'packages') {
        if (packageName !== undefined) await installPackages(ctx, MODULE, [packageSpec(ctx, packageName, version)]);
        else if (!(await installFirstAvailable(ctx, version))) {
          ctx.recoverable('WARNING', `No installable puppet package in any of: ${PUPPET_NAMES.join(', ')}`);
        }
      } else if (aio) {
        const args = [
          ...(version !== undefined ? ['-v', version] : []),
          ...(collection !== undefined ? ['-c', collection] : []),
          ...(cleanup ? ['--cleanup'] : []),
        ];
        await runInstallerScript(ctx, MODULE, aioUrl, 5, 'puppet-install', args);
      } else {
        ctx.recoverable('WARNING', `Unknown puppet install type '${installType}'`);
        exec = false;
      }
    }

    // As 22.4: puppet is asked for all three paths even when the config gives them.
    const printedConf = await configValue(ctx, bin, 'config');
    const printedSslDir = await configValue(ctx, bin, 'ssldir');
    const printedCsrPath = await configValue(ctx, bin, 'csr_attributes');
    const conf = puppet.conf_file ?? printedConf;
    const sslDir = puppet.ssl_dir ?? printedSslDir;
    const csrPath = puppet.csr_attributes_path ?? printedCsrPath;

    if (puppet.conf !== undefined) {
      if (puppet.conf instanceof RefusedSetting) throw new ModuleError(MODULE, puppet.conf.message);
      const text = await ctx.platform.readTextIfExists(conf);
      if (text === undefined) throw new ModuleError(MODULE, `cannot read ${conf}: no such file`);
      const parsed = parsePyConfig(
        MODULE,
        text
          .split('\n')
          .map((l) => l.replace(/^\s+/, ''))
          .join('\n'),
        conf,
      );
      for (const entry of puppet.conf) {
        if (entry instanceof RefusedSetting) throw new ModuleError(MODULE, entry.message);
        if ('caCert' in entry) {
          const certDir = posix.join(sslDir, 'certs');
          await ctx.platform.mkdir(sslDir, { mode: 0o771, owner: `${puppetUser}:root` });
          await ctx.platform.mkdir(certDir, { owner: `${puppetUser}:root` });
          await ctx.platform.writeFile(posix.join(certDir, 'ca.pem'), entry.caCert, {
            mode: 0o644,
            owner: `${puppetUser}:root`,
          });
        } else {
          for (const [option, value] of entry.options) {
            let setting = value;
            if (option === 'certname') {
              const iid = ctx.instance?.instanceId ?? '';
              setting = value
                .replace(/%f/g, await fqdn(ctx))
                .replace(/%i/g, iid)
                .toLowerCase();
            }
            setPyOption(MODULE, parsed, entry.section, option, setting);
          }
        }
        // As cloud-init: the rename and the write happen once per section, so .old holds the previous section's result.
        const current = await ctx.platform.readFile(conf);
        await ctx.platform.writeFile(`${conf}.old`, current);
        await ctx.platform.remove(conf);
        await ctx.platform.writeFile(conf, stringifyPyConfig(parsed), { mode: 0o644 });
      }
    }
    if (puppet.csr_attributes !== undefined)
      await ctx.platform.writeFile(csrPath, puppet.csr_attributes, { mode: 0o644 });
    if (startService) await managePuppetServices(ctx, 'enable');
    if (exec) {
      ctx.log.debug('Running puppet-agent');
      const argv = [bin, 'agent'];
      const args = puppet.exec_args ?? AGENT_DEFAULT_ARGS;
      if (args instanceof RefusedSetting) {
        ctx.recoverable('WARNING', args.message);
        argv.push(...AGENT_DEFAULT_ARGS);
      } else argv.push(...args);
      await ctx.output(await run(ctx, argv));
    }
    if (startService) await managePuppetServices(ctx, 'start');
  },
});
