// DisplayIdleTimeoutConfigPlugin: sets the display idle timeout (display_idle_timeout seconds, 0 = never) of the active
// power scheme.
import { PluginError, type Plugin } from './plugin';

export const displayIdleTimeoutPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.displayidletimeout.DisplayIdleTimeoutConfigPlugin',
  name: 'DisplayIdleTimeoutConfigPlugin',
  stage: 'main',
  async execute(ctx) {
    const seconds = ctx.conf.intValue('display_idle_timeout');
    if (seconds < 0)
      throw new PluginError(
        'DisplayIdleTimeoutConfigPlugin',
        `display_idle_timeout must be 0 or more seconds, got ${seconds}`,
      );
    const powercfg = ctx.platform.hostPath('Windows\\System32\\powercfg.exe');
    await ctx.platform.run([powercfg, '/setacvalueindex', 'SCHEME_CURRENT', 'SUB_VIDEO', 'VIDEOIDLE', String(seconds)]);
    await ctx.platform.run([powercfg, '/setactive', 'SCHEME_CURRENT']);
    ctx.log.info(`Display idle timeout set to ${seconds} s`);
    return { status: 'done', reboot: false };
  },
};
