// LocalScriptsPlugin: runs the scripts in local_scripts_path in name order, honouring 1001/1002/1003.
import { combineResults, runScriptFile, scriptKindFromExtension } from './windows-script';
import type { Plugin, PluginContext, PluginResult } from './plugin';

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
    const results: PluginResult[] = [];
    for (const name of await ctx.platform.listDir(dir)) {
      const kind = scriptKindFromExtension(name);
      if (!kind) continue;
      const path = `${dir.replace(/[\\/]+$/, '')}\\${name}`;
      const { result } = await runScriptFile(ctx.platform, ctx.log, kind, path, name, ctx.conf.int('user_data_script_timeout') ? (ctx.conf.int('user_data_script_timeout') as number) * 1000 : undefined);
      results.push(result);
      if (result.reboot) break;
    }
    return combineResults(results);
  },
};
