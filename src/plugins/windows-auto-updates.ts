// WindowsAutoUpdatesPlugin: enables or disables Windows automatic updates (enable_automatic_updates) through the AU
// policy.
import type { Plugin } from './plugin';

const AU_KEY = 'SOFTWARE\\Policies\\Microsoft\\Windows\\WindowsUpdate\\AU';
/** AUOptions 4: download automatically and schedule the install. */
const AU_AUTO_DOWNLOAD_AND_SCHEDULE = 4;

export const windowsAutoUpdatesPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.updates.WindowsAutoUpdatesPlugin',
  name: 'WindowsAutoUpdatesPlugin',
  stage: 'main',
  async execute(ctx) {
    const enable = ctx.conf.bool('enable_automatic_updates');
    if (enable === undefined) return { status: 'done', reboot: false };
    ctx.windows.regSet('HKLM', AU_KEY, 'NoAutoUpdate', { type: 'REG_DWORD', data: enable ? 0 : 1 });
    if (enable)
      ctx.windows.regSet('HKLM', AU_KEY, 'AUOptions', { type: 'REG_DWORD', data: AU_AUTO_DOWNLOAD_AND_SCHEDULE });
    ctx.log.info(`Automatic updates ${enable ? 'enabled' : 'disabled'}`);
    return { status: 'done', reboot: false };
  },
};
