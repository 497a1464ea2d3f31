// cc_package_update_upgrade_install: package index update, upgrade, installs through the distro's package manager, reboot if required.
import { distroOpsFor } from '../platform/linux/distro/detect-distro';
import type { DistroOps } from '../platform/linux/distro/distro';
import { describeError } from '../util/errors';
import { cfgBool } from './support/config-values';
import { updatePackageSources } from './support/install-packages';
import { ModuleError, type CloudConfig, type Module, type ModuleContext } from './module';

export const REBOOT_REQUIRED_FILE = '/var/run/reboot-required';
export const REBOOT_COMMAND = ['/sbin/reboot'];

function anyTrue(cfg: CloudConfig, ...keys: string[]): boolean {
  return keys.some((k) => cfgBool(cfg, k, false));
}

/** `packages` items: a name, or [name, version] joined as the family's package manager spells a version. */
export function expandPackageList(packages: unknown, family: string): string[] {
  if (packages === undefined || packages === null) return [];
  const list = Array.isArray(packages) ? packages : [packages];
  const join = family === 'debian' || family === 'alpine' || family === 'unknown' ? '=' : '-';
  return list.map((p, i) => {
    if (typeof p === 'string') return p;
    if (Array.isArray(p) && p.length === 1) return String(p[0]);
    if (Array.isArray(p) && p.length === 2) return `${String(p[0])}${join}${String(p[1])}`;
    throw new ModuleError('package_update_upgrade_install', `packages[${i}] must be a name or [name, version], got ${JSON.stringify(p)}`);
  });
}

export interface PackageModuleDeps {
  /** Waits between checks after the reboot command (cloud-init: 1, 2, 4, 8, 16, 32 seconds). */
  sleep: (ms: number) => Promise<void>;
  distroOps: (ctx: ModuleContext) => Promise<DistroOps>;
}

async function runLogged(ctx: ModuleContext, ops: DistroOps, action: 'update' | 'upgrade' | 'install', pkgs: string[] = []): Promise<void> {
  const cmd = ops.packageCommand(action, pkgs);
  const r = await ctx.platform.run(cmd.argv, { env: cmd.env, allowFailure: true });
  if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
  if (r.code !== 0) throw new ModuleError('package_update_upgrade_install', `'${cmd.argv.join(' ')}' exited with code ${r.code}`);
}

export function createPackageUpdateUpgradeInstallModule(deps: PackageModuleDeps): Module {
  return {
    name: 'package_update_upgrade_install',
    stage: 'final',
    frequency: 'once-per-instance',
    distros: 'all',
    activateBy: ['apt_update', 'package_update', 'apt_upgrade', 'package_upgrade', 'packages'],
    async run(ctx, cfg): Promise<void> {
      const update = anyTrue(cfg, 'apt_update', 'package_update');
      const upgrade = anyTrue(cfg, 'package_upgrade', 'apt_upgrade');
      const rebootIfRequired = anyTrue(cfg, 'apt_reboot_if_required', 'package_reboot_if_required');
      const pkgs = expandPackageList(cfg.packages, ctx.distro.family);
      if (!update && !upgrade && pkgs.length === 0) return;
      const ops = await deps.distroOps(ctx);
      const errors: string[] = [];
      const attempt = async (what: string, fn: () => Promise<void>) => {
        try {
          await fn();
        } catch (err) {
          ctx.log.warn(`${what}: ${describeError(err)}`);
          errors.push(`${what}: ${describeError(err)}`);
        }
      };
      await attempt('Package update failed', () => updatePackageSources(ctx, 'package_update_upgrade_install'));
      if (upgrade) await attempt('Package upgrade failed', () => runLogged(ctx, ops, 'upgrade'));
      if (pkgs.length) {
        await attempt(`Failed to install packages: ${pkgs.join(', ')}`, async () => {
          // install_packages refreshes first on apt/pacman/apk families (a no-op after the semaphore above).
          if (!['redhat', 'suse'].includes(ctx.distro.family)) await updatePackageSources(ctx, 'package_update_upgrade_install');
          await runLogged(ctx, ops, 'install', pkgs);
        });
      }
      const st = ctx.platform.stat ? await ctx.platform.stat(REBOOT_REQUIRED_FILE) : undefined;
      const rebootRequired = st ? st.type === 'file' : await ctx.platform.exists(REBOOT_REQUIRED_FILE);
      if ((upgrade || pkgs.length) && rebootIfRequired && rebootRequired) {
        await attempt('Requested reboot did not happen', async () => {
          ctx.log.warn(`Rebooting after upgrade or install per ${REBOOT_REQUIRED_FILE}`);
          await ctx.platform.run(REBOOT_COMMAND);
          let wait = 1000;
          const start = Date.now();
          for (let i = 0; i < 6; i++) {
            await deps.sleep(wait);
            wait *= 2;
            ctx.log.debug(`Rebooted, but still running after ${Math.round((Date.now() - start) / 1000)} seconds`);
          }
          throw new ModuleError('package_update_upgrade_install', `Reboot did not happen after ${Math.round((Date.now() - start) / 1000)} seconds!`);
        });
      }
      if (errors.length) {
        ctx.log.warn(`${errors.length} failed with exceptions, re-raising the last one`);
        throw new ModuleError('package_update_upgrade_install', errors[errors.length - 1] as string);
      }
    },
  };
}

export const packageUpdateUpgradeInstallModule: Module = createPackageUpdateUpgradeInstallModule({
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  distroOps: (ctx) => distroOpsFor(ctx.platform, ctx.distro),
});
