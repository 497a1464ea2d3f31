// cloud-init 25.1's util.wait_for_snap_seeded: once ever (the semaphore /var/lib/cloud/sem/snap_seeded.once), wait
// for snapd to load its seed when there is a `snap` command; snap, lxd and ubuntu_autoinstall call it first.
import { posix } from 'node:path';
import type { ModuleContext } from '../module';
import { whichInTarget } from './distro-facts';
import { takeSemaphore } from './semaphore';

export async function waitForSnapSeeded(ctx: ModuleContext): Promise<void> {
  if (!(await takeSemaphore(ctx.platform, posix.join(ctx.paths.cloudDir, 'sem', 'snap_seeded.once')))) return;
  if (!(await whichInTarget(ctx.platform, 'snap'))) {
    ctx.log.debug('Skipping snap wait, no snap command present');
    return;
  }
  await ctx.platform.run(['snap', 'wait', 'system', 'seed.loaded']);
}
