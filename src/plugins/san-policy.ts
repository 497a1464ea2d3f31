// SANPolicyPlugin: sets the SAN policy for newly found disks (san_policy: OnlineAll, OfflineShared, OfflineAll).
import { PluginError, type Plugin } from './plugin';

const PARTMGR_KEY = 'SYSTEM\\CurrentControlSet\\Services\\partmgr\\Parameters';
const POLICIES: Record<string, number> = { onlineall: 1, offlineshared: 2, offlineall: 3 };

export const sanPolicyPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.sanpolicy.SANPolicyPlugin',
  name: 'SANPolicyPlugin',
  stage: 'main',
  async execute(ctx) {
    const policy = ctx.conf.str('san_policy');
    if (!policy) return { status: 'done', reboot: false };
    const value = POLICIES[policy.toLowerCase()];
    if (value === undefined)
      throw new PluginError(
        'SANPolicyPlugin',
        `san_policy '${policy}' is not one of OnlineAll, OfflineShared, OfflineAll`,
      );
    const current = ctx.windows.regGet('HKLM', PARTMGR_KEY, 'SanPolicy');
    if (current?.type === 'REG_DWORD' && current.data === value) {
      ctx.log.info(`SAN policy already is ${policy}`);
    } else {
      ctx.windows.regSet('HKLM', PARTMGR_KEY, 'SanPolicy', { type: 'REG_DWORD', data: value });
      ctx.log.info(`SAN policy set to ${policy}`);
    }
    return { status: 'done', reboot: false };
  },
};
