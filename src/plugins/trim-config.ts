// TrimConfigPlugin: enables or disables TRIM (delete notifications) for NTFS as `fsutil behavior set
// DisableDeleteNotify` does.
import type { Plugin } from './plugin';

const FILESYSTEM_KEY = 'SYSTEM\\CurrentControlSet\\Control\\FileSystem';

export const trimConfigPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.trimconfig.TrimConfigPlugin',
  name: 'TrimConfigPlugin',
  stage: 'main',
  async execute(ctx) {
    const enabled = ctx.conf.boolValue('trim_enabled');
    ctx.windows.regSet('HKLM', FILESYSTEM_KEY, 'DisableDeleteNotification', {
      type: 'REG_DWORD',
      data: enabled ? 0 : 1,
    });
    ctx.log.info(`TRIM ${enabled ? 'enabled' : 'disabled'}`);
    return { status: 'done', reboot: false };
  },
};
