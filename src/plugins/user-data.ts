// UserDataPlugin: runs the instance's user data: scripts (cmd, PowerShell, shell, EC2 tags), MIME parts and #cloud-config.
import { applyCloudConfig } from './cloud-config';
import { DONE, type Plugin, type PluginContext, type PluginResult } from './plugin';
import { maybeGunzip, splitUserData, type UserDataPart } from './user-data-parts';
import { combineResults, detectScript, runScript } from './windows-script';

async function runPart(ctx: PluginContext, part: UserDataPart, index: number): Promise<PluginResult | undefined> {
  const label = part.filename ?? `part-${String(index + 1).padStart(3, '0')}`;
  if (part.contentType === 'text/cloud-config' || part.body.trimStart().startsWith('#cloud-config')) {
    return applyCloudConfig(ctx, part.body);
  }
  const script = detectScript(part.body);
  if (script) {
    const timeout = ctx.conf.int('user_data_script_timeout');
    const run = await runScript(ctx.platform, ctx.log, script, label, timeout ? timeout * 1000 : undefined);
    return run.result;
  }
  ctx.log.warn(`User data ${label}${part.contentType ? ` (${part.contentType})` : ''} is neither a script nor #cloud-config; skipped`);
  return undefined;
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
    const text = Buffer.from(maybeGunzip(raw)).toString('utf8');
    const results: PluginResult[] = [];
    for (const [i, part] of splitUserData(text).entries()) {
      const r = await runPart(ctx, part, i);
      if (r) results.push(r);
    }
    return combineResults(results);
  },
};
