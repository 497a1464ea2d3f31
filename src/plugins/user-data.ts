// UserDataPlugin: runs the instance's user data as cloudbase-init does: #cloud-config (the Windows subset) and scripts, with 1001/1002/1003.
import { processWindowsUserData } from '../userdata/windows-user-data';
import { applyCloudConfig } from './cloud-config';
import { DONE, PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';
import { combineResults, runScript } from './windows-script';

export const userDataPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.common.userdata.UserDataPlugin',
  name: 'UserDataPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const raw = ctx.instance?.userData;
    if (!raw || raw.length === 0) {
      ctx.log.info('No user data');
      return DONE;
    }
    const ud = await processWindowsUserData(raw, { log: ctx.log });
    for (const i of ud.ignored) ctx.log.warn(`User data part ${i.part} (${i.contentType}) is not handled on Windows; skipped`);
    const results: PluginResult[] = [];
    if (Object.keys(ud.cloudConfig).length > 0) results.push(await applyCloudConfig(ctx, ud.cloudConfig));
    const timeout = ctx.conf.int('user_data_script_timeout');
    const failures: string[] = [];
    for (const script of ud.scripts) {
      try {
        results.push(await runScript({ platform: ctx.platform, log: ctx.log, env: ctx.env, ...(timeout ? { timeoutMs: timeout * 1000 } : {}) }, script));
      } catch (err) {
        failures.push((err as Error).message);
      }
    }
    if (ud.errors.length > 0 || failures.length > 0) {
      const all = [...ud.errors.map((e) => `${e.part}: ${e.message}`), ...failures];
      if (results.length === 0) throw new PluginError('UserDataPlugin', all.join('; '));
      ctx.log.error(`UserDataPlugin: ${all.join('; ')}`);
    }
    return combineResults(results);
  },
};
