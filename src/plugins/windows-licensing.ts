// WindowsLicensingPlugin: the generic KMS or AVMA key, the KMS host, activation and the licensing state, through
// slmgr.vbs.
import { PluginError, type Plugin, type PluginContext } from './plugin';
import { genericProductKey } from './product-keys';

async function slmgr(ctx: PluginContext, args: string[]): Promise<string> {
  const cscript = ctx.platform.hostPath('Windows\\System32\\cscript.exe');
  const script = ctx.platform.hostPath('Windows\\System32\\slmgr.vbs');
  const r = await ctx.platform.run([cscript, '//NoLogo', script, ...args]);
  return r.stdout.trim();
}

const CURRENT_VERSION = 'SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion';

/**
 * set_kms_product_key / set_avma_product_key: the published generic key for this build and edition, through slmgr /ipk.
 */
async function installGenericKey(ctx: PluginContext, kind: 'kms' | 'avma'): Promise<void> {
  if (kind === 'avma' && ctx.conf.bool('set_kms_product_key'))
    ctx.log.warn('set_kms_product_key and set_avma_product_key are both set; the AVMA key is installed');
  const read = (name: string) => {
    const v = ctx.windows.regGet('HKLM', CURRENT_VERSION, name);
    return v?.type === 'REG_SZ' ? v.data : '';
  };
  const build = Number(read('CurrentBuildNumber'));
  const edition = read('EditionID');
  if (/Eval$/i.test(edition)) {
    ctx.log.info(`${edition} is an evaluation edition: no ${kind.toUpperCase()} key can be installed`);
    return;
  }
  const key = genericProductKey(kind, build, edition);
  if (!key)
    throw new PluginError(
      'WindowsLicensingPlugin',
      `no published ${kind.toUpperCase()} key for build ${build || '?'} edition '${edition || '?'}' (${CURRENT_VERSION}); unset set_${kind}_product_key`,
    );
  await slmgr(ctx, ['/ipk', key]);
  ctx.log.info(`${kind.toUpperCase()} client key for ${edition} (build ${build}) installed`);
}

export const windowsLicensingPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.licensing.WindowsLicensingPlugin',
  name: 'WindowsLicensingPlugin',
  stage: 'main',
  async execute(ctx) {
    const kind = ctx.conf.bool('set_avma_product_key')
      ? 'avma'
      : ctx.conf.bool('set_kms_product_key')
        ? 'kms'
        : undefined;
    if (kind) await installGenericKey(ctx, kind);
    const kmsHost = ctx.conf.str('kms_host');
    if (kmsHost) {
      await slmgr(ctx, ['/skms', kmsHost]);
      ctx.log.info(`KMS host set to ${kmsHost}`);
    }
    if (ctx.conf.bool('activate_windows')) {
      await slmgr(ctx, ['/ato']);
      ctx.log.info('Windows activated');
    }
    if (ctx.conf.boolValue('log_licensing_info')) ctx.log.info(`Licensing info:\n${await slmgr(ctx, ['/dlv'])}`);
    return { status: 'done', reboot: false };
  },
};
