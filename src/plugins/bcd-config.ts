// BCDConfigPlugin: turns automatic recovery of the current boot entry on or off (bcd_enable_auto_recovery).
import type { Plugin } from './plugin';

export const bcdConfigPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.bootconfig.BCDConfigPlugin',
  name: 'BCDConfigPlugin',
  stage: 'main',
  async execute(ctx) {
    if (ctx.conf.bool('set_unique_boot_disk_id') ?? true) {
      ctx.log.warn('set_unique_boot_disk_id: kiln does not rewrite the boot disk signature yet; skipped');
    }
    const recovery = ctx.conf.bool('bcd_enable_auto_recovery') ?? false;
    await ctx.platform.run([ctx.platform.hostPath('Windows\\System32\\bcdedit.exe'), '/set', '{current}', 'recoveryenabled', recovery ? 'Yes' : 'No']);
    ctx.log.info(`Automatic recovery ${recovery ? 'enabled' : 'disabled'}`);
    return { status: 'done', reboot: false };
  },
};
