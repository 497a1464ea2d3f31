// UserDataPlugin: runs the instance's user data as cloudbase-init does: #cloud-config (the Windows subset) and scripts, with 1001/1002/1003.
import { processWindowsUserData, type WindowsUserDataStep } from '../userdata/windows-user-data';
import { describeError } from '../util/errors';
import { applyCloudConfig } from './cloud-config';
import { DONE, PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';
import { combineResults, runScript } from './windows-script';

/** One part's work; a part that fails is logged and counts as done, as cloudbase-init's _process_part. */
async function runStep(ctx: PluginContext, step: WindowsUserDataStep): Promise<PluginResult> {
  try {
    if (step.kind === 'cloud-config') return await applyCloudConfig(ctx, step.config);
    const timeout = ctx.conf.int('user_data_script_timeout');
    const results: PluginResult[] = [];
    for (const script of step.scripts) results.push(await runScript({ platform: ctx.platform, log: ctx.log, env: ctx.env, ...(timeout ? { timeoutMs: timeout * 1000 } : {}) }, script));
    return combineResults(results);
  } catch (err) {
    ctx.log.error(`UserDataPlugin: ${step.part}: ${describeError(err)}`);
    return DONE;
  }
}

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
    if (ud.steps.length === 0 && ud.errors.length > 0) throw new PluginError('UserDataPlugin', ud.errors.map((e) => `${e.part}: ${e.message}`).join('; '));
    // As cloudbase-init's _process_user_data: the parts run in order, the plugin's result is the last part's, and a
    // part that asks for a reboot (1001, 1003) ends the walk: the parts after it run at a later boot, if ever.
    let result: PluginResult = DONE;
    for (const [i, step] of ud.steps.entries()) {
      result = await runStep(ctx, step);
      if (result.reboot && i < ud.steps.length - 1) {
        ctx.log.info(`UserDataPlugin: ${step.part} asked for a reboot; the ${ud.steps.length - 1 - i} part(s) after it are not run now`);
        break;
      }
    }
    return result;
  },
};
