// WindowsLicensingPlugin: sets the KMS host, activates Windows and logs the licensing state, through slmgr.vbs.
import type { Plugin, PluginContext } from './plugin';

async function slmgr(ctx: PluginContext, args: string[]): Promise<string> {
  const cscript = ctx.platform.hostPath('Windows\\System32\\cscript.exe');
  const script = ctx.platform.hostPath('Windows\\System32\\slmgr.vbs');
  const r = await ctx.platform.run([cscript, '//NoLogo', script, ...args]);
  return r.stdout.trim();
}

export const windowsLicensingPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.licensing.WindowsLicensingPlugin',
  name: 'WindowsLicensingPlugin',
  stage: 'main',
  async execute(ctx) {
    if (ctx.conf.bool('set_kms_product_key') || ctx.conf.bool('set_avma_product_key')) {
      ctx.log.warn('set_kms_product_key / set_avma_product_key: kiln has no product key table yet; no key installed');
    }
    const kmsHost = ctx.conf.str('kms_host');
    if (kmsHost) {
      await slmgr(ctx, ['/skms', kmsHost]);
      ctx.log.info(`KMS host set to ${kmsHost}`);
    }
    if (ctx.conf.bool('activate_windows')) {
      await slmgr(ctx, ['/ato']);
      ctx.log.info('Windows activated');
    }
    if (ctx.conf.bool('log_licensing_info') ?? true) ctx.log.info(`Licensing info:\n${await slmgr(ctx, ['/dlv'])}`);
    return { status: 'done', reboot: false };
  },
};
