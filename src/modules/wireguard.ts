// cc_wireguard: installs wireguard-tools when `wg` is missing, loads the kernel module, writes each interface's config
// (0600), enables and restarts wg-quick@NAME, then runs the readiness probes.
import { configModule } from './support/config-module';
import { readConfigValue } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';
import { serviceCommand } from './support/service-control';
import { ModuleError, type Module, type ModuleContext } from './module';

const MODULE = 'wireguard';
const REQUIRED_KEYS = ['config_path', 'content', 'name'];
const WIREGUARD_SHAPE = "'wireguard' must be a mapping with an 'interfaces' list";

/**
 * The packages cloud-init installs: wireguard-tools, and the DKMS `wireguard` package below kernel 5.6 (which lacks the
 * module).
 */
export function wireguardPackages(kernelRelease: string): string[] {
  const [major = 0, minor = 0] = kernelRelease.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const old = major < 5 || (major === 5 && minor < 6);
  return old ? ['wireguard-tools', 'wireguard'] : ['wireguard-tools'];
}

/** Runs a shell command as subp(…, shell=True, capture=True) does; the caller judges the exit code. */
async function shell(ctx: ModuleContext, command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return ctx.platform.run(['sh', '-c', command], { allowFailure: true });
}

/** An interface as write_config and enable_wg use it. */
type WgInterface = {
  readonly name: string;
  readonly config_path: string;
  readonly content: string;
};

/** cloud-init's supplemental_schema_validation for one interface: the three keys present, each a string. */
function checkInterface(wgInt: { readonly [key: string]: unknown }): asserts wgInt is WgInterface {
  const errors: string[] = [];
  const missing = REQUIRED_KEYS.filter((k) => !(k in wgInt));
  if (missing.length > 0) errors.push(`Missing required wg:interfaces keys: ${missing.join(', ')}`);
  for (const key of Object.keys(wgInt).sort()) {
    if (REQUIRED_KEYS.includes(key) && typeof wgInt[key] !== 'string')
      errors.push(`Expected a string for wg:interfaces:${key}. Found ${JSON.stringify(wgInt[key])}`);
  }
  if (errors.length > 0)
    throw new ModuleError(MODULE, `Invalid wireguard interface configuration:\n${errors.join('\n')}`);
}

/** One interface as the module reads it: a mapping checked by supplemental_schema_validation, of it the three keys. */
function interfaceSetting(wgInt: unknown, index: number): unknown {
  if (!isRecord(wgInt))
    throw new ModuleError(
      MODULE,
      `wireguard.interfaces[${index}] must be a mapping with name, config_path and content`,
    );
  checkInterface(wgInt);
  return readConfigValue({ name: 'as-is', config_path: 'as-is', content: 'as-is' }, wgInt);
}

/** readinessprobe_command_validation: a list of strings; null is as if absent (no checks defined). */
function checkProbes(probes: unknown): unknown {
  if (probes === null) return undefined;
  if (!Array.isArray(probes))
    throw new ModuleError(MODULE, "'wireguard.readinessprobe' must be a list of shell commands");
  const bad = probes
    .map((p, pos) =>
      typeof p === 'string' ? '' : `Expected a string for readinessprobe at ${pos}. Found ${JSON.stringify(p)}`,
    )
    .filter(Boolean);
  if (bad.length > 0) throw new ModuleError(MODULE, `Invalid readinessProbe commands:\n${bad.join('\n')}`);
  return probes;
}

/**
 * wireguard as handle reads it: null stays (the module installs the tools and loads the kernel module before it
 * fails on it, as upstream's wg_section["interfaces"] does); a mapping needs an interfaces list, each interface is
 * checked by supplemental_schema_validation and the probes by readinessprobe_command_validation, in their words.
 */
function wireguardSetting(section: unknown): unknown {
  if (section === null) return null;
  if (!isRecord(section) || !Array.isArray(section.interfaces)) throw new ModuleError(MODULE, WIREGUARD_SHAPE);
  const interfaces = section.interfaces.map((wgInt, i) => interfaceSetting(wgInt, i));
  const probes = checkProbes(section.readinessprobe ?? null);
  return probes === undefined ? { interfaces } : { interfaces, readinessprobe: probes };
}

/** lsmod, and `modprobe wireguard` when the list does not name it (both through the shell, as cloud-init). */
async function loadKernelModule(ctx: ModuleContext): Promise<void> {
  const lsmod = await shell(ctx, 'lsmod');
  if (lsmod.code !== 0)
    throw new ModuleError(MODULE, `Could not load wireguard module: 'lsmod' exited with code ${lsmod.code}`);
  if (/wireguard/.test(lsmod.stdout.trim())) return;
  ctx.log.debug('Loading wireguard kernel module');
  const r = await shell(ctx, 'modprobe wireguard');
  if (r.code !== 0)
    throw new ModuleError(
      MODULE,
      `Could not load wireguard module: 'modprobe wireguard' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`,
    );
}

export const wireguardModule: Module = configModule({
  name: 'wireguard',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['ubuntu'],
  activateBy: ['wireguard'],
  configKeys: { wireguard: wireguardSetting },
  async run(ctx, cfg): Promise<void> {
    if (cfg.wireguard === undefined) {
      ctx.log.debug("Skipping module named wireguard, no 'wireguard' configuration found");
      return;
    }
    ctx.log.debug('Found Wireguard section in config');
    const section = cfg.wireguard;
    // As cloud-init: the tools and the kernel module come first, even for a null section.
    if (!(await whichInTarget(ctx.platform, 'wg')))
      await installPackages(ctx, MODULE, wireguardPackages(ctx.platform.uname().release));
    await loadKernelModule(ctx);
    if (section === null) throw new ModuleError(MODULE, WIREGUARD_SHAPE);

    for (const wgInt of section.interfaces) {
      checkInterface(wgInt);
      ctx.log.debug(`Configuring Wireguard interface ${wgInt.name}`);
      ctx.log.debug(`Writing wireguard config to file ${wgInt.config_path}`);
      await ctx.platform.writeFile(wgInt.config_path, wgInt.content, { mode: 0o600 });
      // 25.1 enables then restarts the unit, so a rerun picks up a changed file (22.4 started it).
      for (const action of ['enable', 'restart'] as const) {
        const argv = await serviceCommand(ctx, action, `wg-quick@${wgInt.name}`);
        const r = await ctx.platform.run(argv, { allowFailure: true });
        if (r.code !== 0)
          throw new ModuleError(
            MODULE,
            `Failed enabling/starting Wireguard interface(s):\n'${argv.join(' ')}' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`,
          );
      }
    }

    const probes = section.readinessprobe;
    if (probes === undefined) {
      ctx.log.debug('Skipping readinessprobe - no checks defined');
      return;
    }
    const errors: string[] = [];
    for (const probe of probes) {
      ctx.log.debug(`Running readinessprobe: '${probe}'`);
      const r = await shell(ctx, probe);
      if (r.code !== 0)
        errors.push(`${probe}: exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`);
    }
    if (errors.length > 0)
      throw new ModuleError(MODULE, `Failed running readinessprobe command:\n${errors.join('\n')}`);
  },
});
