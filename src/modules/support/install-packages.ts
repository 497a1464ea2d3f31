// cloud-init's distro.install_packages: refresh the index first where the family does (apt, pacman, apk), then install.
import { posix } from 'node:path';
import { distroOpsFor } from '../../platform/linux/distro/detect-distro';
import type { PackageAction } from '../../platform/linux/distro/distro';
import { ModuleError, type ModuleContext } from '../module';
import { takeSemaphore } from './semaphore';

export async function runPackageAction(
  ctx: ModuleContext,
  module: string,
  action: PackageAction,
  pkgs: string[] = [],
): Promise<void> {
  const ops = await distroOpsFor(ctx.platform, ctx.distro);
  const cmd = ops.packageCommand(action, pkgs);
  const r = await ctx.platform.run(cmd.argv, { env: cmd.env, allowFailure: true });
  if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
  if (r.code !== 0)
    throw new ModuleError(
      module,
      `'${cmd.argv.join(' ')}' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}` : ''}`,
    );
}

/**
 * The distro's update_package_sources: the index refresh runs once per instance, guarded by the semaphore
 * instances/<iid>/sem/update_sources (taken before running, kept on failure, as cloud-init's runner does); with
 * FORCE (25.1's force=True, as apt_configure asks after writing sources) it runs every time and takes none.
 */
export async function updatePackageSources(
  ctx: ModuleContext,
  module: string,
  { force = false }: { force?: boolean } = {},
): Promise<void> {
  if (force) {
    await runPackageAction(ctx, module, 'update');
    return;
  }
  const iid = ctx.instance?.instanceId;
  const sem = iid ? posix.join(ctx.paths.cloudDir, 'instances', iid, 'sem', 'update_sources') : undefined;
  if (sem && !(await takeSemaphore(ctx.platform, sem))) {
    ctx.log.debug(`update-sources already ran for this instance (${sem})`);
    return;
  }
  await runPackageAction(ctx, module, 'update');
}

/** 25.1's install_packages: with nothing to install it does nothing (no index refresh, no install command). */
export async function installPackages(ctx: ModuleContext, module: string, pkgs: string[]): Promise<void> {
  if (pkgs.length === 0) return;
  if (!['redhat', 'suse'].includes(ctx.distro.family)) await updatePackageSources(ctx, module);
  await runPackageAction(ctx, module, 'install', pkgs);
}
