// cc_puppet: installs puppet (distro packages or the AIO script), merges `conf` into puppet.conf, writes
// csr_attributes.yaml, enables, runs and starts the agent.
import { hostname } from 'node:os';
import { posix } from 'node:path';
import { pyyamlDump } from '../config/pyyaml-dump';
import { isRecord } from './support/config-shapes';
import { installPackages, updatePackageSources } from './support/install-packages';
import { manageService } from './support/service-control';
import { CommandError } from '../util/command-error';
import { parsePyConfig, setPyOption, stringifyPyConfig } from './support/python-config-parser';
import { runInstallerScript } from './support/run-installer-script';
import { ModuleError, type CloudConfig, type Module, type ModuleContext } from './module';

const MODULE = 'puppet';
export const AIO_INSTALL_URL = 'https://raw.githubusercontent.com/puppetlabs/install-puppet/main/install.sh';
const AGENT_DEFAULT_ARGS = ['--test'];

/** util.get_cfg_option_bool: true, or one of cloud-init's true words. */
function optBool(cfg: Record<string, unknown>, key: string, dflt: boolean): boolean {
  if (!(key in cfg)) return dflt;
  const v = cfg[key];
  if (typeof v === 'boolean') return v;
  return ['true', '1', 'on', 'yes'].includes(String(v).toLowerCase());
}

/** util.get_cfg_option_str: the value as a string, DFLT when absent. */
function optStr(cfg: Record<string, unknown>, key: string, dflt: string | undefined): string | undefined {
  if (!(key in cfg)) return dflt;
  const v = cfg[key];
  return typeof v === 'string' ? v : v === null || v === undefined ? dflt : String(v);
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
  const name = hostname();
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

export const puppetModule: Module = {
  name: 'puppet',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['puppet'],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    if (!('puppet' in cfg)) {
      ctx.log.debug("Skipping module named puppet, no 'puppet' configuration found");
      return;
    }
    const pcfg = cfg.puppet;
    if (!isRecord(pcfg)) throw new ModuleError(MODULE, `'puppet' must be a mapping, not ${JSON.stringify(pcfg)}`);
    const install = optBool(pcfg, 'install', true);
    const version = optStr(pcfg, 'version', undefined);
    const collection = optStr(pcfg, 'collection', undefined);
    const installType = optStr(pcfg, 'install_type', 'packages') as string;
    const cleanup = optBool(pcfg, 'cleanup', true);
    let exec = optBool(pcfg, 'exec', false);
    const startService = optBool(pcfg, 'start_service', true);
    const aioUrl = optStr(pcfg, 'aio_install_url', AIO_INSTALL_URL) as string;
    // AIO and distro packages keep puppet in different places and run it as different users.
    const aio = installType === 'aio';
    const puppetUser = aio ? 'root' : 'puppet';
    const bin = aio ? '/opt/puppetlabs/bin/puppet' : 'puppet';
    const packageName = optStr(pcfg, 'package_name', aio ? 'puppet-agent' : undefined);

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
    const conf = optStr(pcfg, 'conf_file', await configValue(ctx, bin, 'config')) as string;
    const sslDir = optStr(pcfg, 'ssl_dir', await configValue(ctx, bin, 'ssldir')) as string;
    const csrPath = optStr(pcfg, 'csr_attributes_path', await configValue(ctx, bin, 'csr_attributes')) as string;

    if ('conf' in pcfg) {
      const sections = pcfg.conf;
      if (!isRecord(sections)) throw new ModuleError(MODULE, "'puppet.conf' must be a mapping of sections");
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
      for (const [section, value] of Object.entries(sections)) {
        if (section === 'ca_cert') {
          const certDir = posix.join(sslDir, 'certs');
          await ctx.platform.mkdir(sslDir, { mode: 0o771, owner: `${puppetUser}:root` });
          await ctx.platform.mkdir(certDir, { owner: `${puppetUser}:root` });
          await ctx.platform.writeFile(posix.join(certDir, 'ca.pem'), String(value), {
            mode: 0o644,
            owner: `${puppetUser}:root`,
          });
        } else {
          if (!isRecord(value)) throw new ModuleError(MODULE, `puppet.conf.${section} must be a mapping of settings`);
          for (const [option, v] of Object.entries(value)) {
            let setting: unknown = v;
            if (option === 'certname') {
              const iid = ctx.instance?.instanceId ?? '';
              setting = String(v)
                .replace(/%f/g, await fqdn(ctx))
                .replace(/%i/g, iid)
                .toLowerCase();
            }
            setPyOption(MODULE, parsed, section, option, setting);
          }
        }
        // As cloud-init: the rename and the write happen once per section, so .old holds the previous section's result.
        const current = await ctx.platform.readFile(conf);
        await ctx.platform.writeFile(`${conf}.old`, current);
        await ctx.platform.remove(conf);
        await ctx.platform.writeFile(conf, stringifyPyConfig(parsed), { mode: 0o644 });
      }
    }
    if ('csr_attributes' in pcfg)
      await ctx.platform.writeFile(csrPath, pyyamlDump(pcfg.csr_attributes, true, 2), { mode: 0o644 });
    if (startService) await managePuppetServices(ctx, 'enable');
    if (exec) {
      ctx.log.debug('Running puppet-agent');
      const argv = [bin, 'agent'];
      const ea = pcfg.exec_args;
      if (!('exec_args' in pcfg)) argv.push(...AGENT_DEFAULT_ARGS);
      else if (Array.isArray(ea)) argv.push(...ea.map(String));
      else if (typeof ea === 'string') argv.push(...ea.split(/\s+/).filter(Boolean));
      else {
        ctx.recoverable('WARNING', "Unknown type provided for puppet 'exec_args' expected list, tuple, or string");
        argv.push(...AGENT_DEFAULT_ARGS);
      }
      await ctx.output(await run(ctx, argv));
    }
    if (startService) await managePuppetServices(ctx, 'start');
  },
};
