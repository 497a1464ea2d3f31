// BootStatusPolicyPlugin: sets the boot status policy of the current boot entry (bcd_boot_status_policy, e.g.
// IgnoreAllFailures).
import { PluginError, type Plugin } from './plugin';

const POLICIES = ['displayallfailures', 'ignoreallfailures', 'ignoreshutdownfailures', 'ignorebootfailures'];

export const bootStatusPolicyPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.bootconfig.BootStatusPolicyPlugin',
  name: 'BootStatusPolicyPlugin',
  stage: 'main',
  async execute(ctx) {
    const policy = ctx.conf.str('bcd_boot_status_policy');
    if (!policy) return { status: 'done', reboot: false };
    if (!POLICIES.includes(policy.toLowerCase())) {
      throw new PluginError(
        'BootStatusPolicyPlugin',
        `bcd_boot_status_policy '${policy}' is not one of ${POLICIES.join(', ')}`,
      );
    }
    await ctx.platform.run([
      ctx.platform.hostPath('Windows\\System32\\bcdedit.exe'),
      '/set',
      '{current}',
      'bootstatuspolicy',
      policy,
    ]);
    ctx.log.info(`Boot status policy set to ${policy}`);
    return { status: 'done', reboot: false };
  },
};
