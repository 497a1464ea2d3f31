// cloud-init's distro.install_packages: refresh the index first where the family does (apt, pacman, apk), then install.
import { distroOpsFor } from '../platform/linux/distro/detect-distro';
import type { PackageAction } from '../platform/linux/distro/distro';
import { ModuleError, type ModuleContext } from './module';

export async function runPackageAction(ctx: ModuleContext, module: string, action: PackageAction, pkgs: string[] = []): Promise<void> {
  const ops = await distroOpsFor(ctx.platform, ctx.distro);
  const cmd = ops.packageCommand(action, pkgs);
  const r = await ctx.platform.run(cmd.argv, { env: cmd.env, allowFailure: true });
  if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
  if (r.code !== 0) throw new ModuleError(module, `'${cmd.argv.join(' ')}' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}` : ''}`);
}

export async function installPackages(ctx: ModuleContext, module: string, pkgs: string[]): Promise<void> {
  if (!['redhat', 'suse'].includes(ctx.distro.family)) await runPackageAction(ctx, module, 'update');
  await runPackageAction(ctx, module, 'install', pkgs);
}
