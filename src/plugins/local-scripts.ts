// LocalScriptsPlugin: runs the scripts in local_scripts_path in name order, honouring 1001/1002/1003.
import type { Plugin, PluginContext, PluginResult } from './plugin';
import { combineResults, runScriptFile } from './windows-script';

export const localScriptsPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.common.localscripts.LocalScriptsPlugin',
  name: 'LocalScriptsPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const dir = ctx.conf.str('local_scripts_path');
    if (!dir) return { status: 'done', reboot: false };
    if (!(await ctx.platform.exists(dir))) {
      ctx.log.info(`local_scripts_path ${dir} does not exist; nothing to run`);
      return { status: 'done', reboot: false };
    }
    const timeout = ctx.conf.int('user_data_script_timeout');
    const results: PluginResult[] = [];
    for (const name of await ctx.platform.listDir(dir)) {
      const path = ctx.platform.hostPath(`${dir.replace(/[\\/]+$/, '')}\\${name}`);
      const result = await runScriptFile(
        { platform: ctx.platform, log: ctx.log, env: ctx.env, ...(timeout ? { timeoutMs: timeout * 1000 } : {}) },
        path,
        name,
      );
      if (!result) continue;
      results.push(result);
      if (result.reboot) break;
    }
    return combineResults(results);
  },
};
