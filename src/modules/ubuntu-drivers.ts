// cc_ubuntu_drivers: once the NVIDIA licence is accepted, registers the late-link debconf template and runs
// `ubuntu-drivers install`.
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { CloudConfigValue } from '../config/schema/cloud-config-types';
import { configModule } from './support/config-module';
import { readConfigValue } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { pyStr } from '../util/python-str';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';
import { ModuleError, type Module, type ModuleContext } from './module';

const MODULE = 'ubuntu_drivers';

/**
 * The debconf template cloud-init loads: linux/nvidia/latelink defaults to true, so the kernel modules are linked at
 * install.
 */
export const NVIDIA_DEBCONF_TEMPLATE =
  'Template: linux/nvidia/latelink\nType: boolean\nDefault: true\nDescription: Late-link NVIDIA kernel modules?\n Enable this to link the NVIDIA kernel modules in cloud-init and\n make them available for use.\n';

/** What an ubuntu-drivers older than `--gpgpu`'s driver:version argument says. */
const OLD_UBUNTU_DRIVERS_STDERR = "ubuntu-drivers: error: argument <command>: invalid choice: 'install'";

type NvidiaSettings = NonNullable<CloudConfigValue<'drivers'>['nvidia']>;

/** The argument `ubuntu-drivers install --gpgpu` gets: `nvidia`, or `nvidia:<version>`. */
export function driverArg(nvidia: NvidiaSettings): string {
  return nvidia.version === undefined ? 'nvidia' : `nvidia:${nvidia.version}`;
}

/**
 * drivers as install_drivers reads it: a mapping, or the module fails in its words; nvidia/license-accepted by
 * translate_bool (absent, or a path that is no mapping, is False: get_cfg_by_path's None), nvidia/version when
 * Python-true, formatted into the argument with str().
 */
function driversSetting(drivers: unknown): unknown {
  if (!isRecord(drivers))
    throw new ModuleError(MODULE, `'drivers' config expected dict, found ${JSON.stringify(drivers)}`);
  const nvidia = isRecord(drivers.nvidia) ? drivers.nvidia : {};
  const read = readConfigValue({ 'license-accepted': 'bool', version: 'truthy-str' }, nvidia);
  return { nvidia: { 'license-accepted': false, ...(read as object) } };
}

/**
 * python3-debconf's DebconfCommunicator('cloud-init'): `debconf-communicate -fnoninteractive cloud-init`, fed the
 * X_LOADTEMPLATEFILE command for a template written to a private folder under /var/tmp/cloud-init (removed after).
 */
async function loadDebconfTemplate(ctx: ModuleContext): Promise<void> {
  const dir = `/var/tmp/cloud-init/tmp${randomBytes(4).toString('hex')}`;
  const file = posix.join(dir, 'nvidia.template');
  try {
    await ctx.platform.mkdir(dir, { mode: 0o700 });
    await ctx.platform.writeFile(file, NVIDIA_DEBCONF_TEMPLATE, { mode: 0o644 });
    const r = await ctx.platform.run(['debconf-communicate', '-fnoninteractive', 'cloud-init'], {
      input: `X_LOADTEMPLATEFILE ${file}\n`,
      allowFailure: true,
    });
    // debconf-communicate answers each command with a status code first: 0 is success.
    const status = r.stdout.trim().split(/\s+/)[0];
    if (r.code !== 0 || (status !== undefined && status !== '' && status !== '0')) {
      throw new ModuleError(
        MODULE,
        `Failed to register NVIDIA debconf template: ${(r.stdout + r.stderr).trim() || `debconf-communicate exited with code ${r.code}`}`,
      );
    }
  } finally {
    await ctx.platform.remove(dir, { recursive: true });
  }
}

export const ubuntuDriversModule: Module = configModule({
  name: 'ubuntu_drivers',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: ['ubuntu'],
  activateBy: ['drivers'],
  configKeys: { drivers: driversSetting },
  async run(ctx, cfg): Promise<void> {
    const nvidia = cfg.drivers?.nvidia;
    if (nvidia === undefined) return;
    if (!nvidia['license-accepted']) {
      ctx.log.debug(`Not installing NVIDIA drivers. nvidia/license-accepted=${pyStr(nvidia['license-accepted'])}`);
      return;
    }
    // cloud-init skips the module (a warning) when python3-debconf is missing; kiln needs the target's
    // debconf-communicate.
    if (!(await whichInTarget(ctx.platform, 'debconf-communicate'))) {
      ctx.recoverable('WARNING', `Skipping module named ${MODULE}, 'debconf-communicate' is not installed`);
      return;
    }
    if (!(await whichInTarget(ctx.platform, 'ubuntu-drivers'))) {
      ctx.log.debug("'ubuntu-drivers' command not available.  Installing ubuntu-drivers-common");
      await installPackages(ctx, MODULE, ['ubuntu-drivers-common']);
    }
    const arg = driverArg(nvidia);
    ctx.log.debug(
      `Installing and activating NVIDIA drivers (nvidia/license-accepted=True, version=${arg === 'nvidia' ? 'latest' : arg.slice('nvidia:'.length)})`,
    );
    await loadDebconfTemplate(ctx);
    const argv = ['ubuntu-drivers', 'install', '--gpgpu', arg];
    const r = await ctx.platform.run(argv, { allowFailure: true });
    if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0) {
      if (r.stderr.includes(OLD_UBUNTU_DRIVERS_STDERR))
        ctx.recoverable(
          'WARNING',
          'the available version of ubuntu-drivers is too old to perform requested driver installation',
        );
      else if (r.stdout.includes('No drivers found for installation.'))
        ctx.recoverable('WARNING', 'ubuntu-drivers found no drivers for installation');
      throw new ModuleError(MODULE, `'${argv.join(' ')}' exited with code ${r.code}`);
    }
  },
});
