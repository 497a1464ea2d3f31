// UserDataPlugin: runs the instance's user data as cloudbase-init does: #cloud-config (the Windows subset) and scripts,
// with 1001/1002/1003.
import type { InstanceData } from '../sources/datasource';
import { gunzipBytes, isGzip } from '../userdata/decode';
import { processWindowsUserData, type WindowsUserDataStep } from '../userdata/windows-user-data';
import { describeError } from '../util/errors';
import type { WindowsScript } from '../userdata/windows-scripts';
import { applyCloudConfig } from './cloud-config';
import { handleHeatPart } from './heat-part';
import { DONE, PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';
import { combineResults, runEc2Blocks, runScript } from './windows-script';

/** The scripts of one part, their results folded into one; EC2 blocks by cloudbase-init's sum of their exit codes. */
async function runScripts(ctx: PluginContext, scripts: WindowsScript[], ec2: boolean): Promise<PluginResult> {
  const timeout = ctx.conf.int('user_data_script_timeout');
  const host = {
    platform: ctx.platform,
    log: ctx.log,
    env: ctx.env,
    ...(timeout ? { timeoutMs: timeout * 1000 } : {}),
  };
  if (ec2) return runEc2Blocks(host, scripts);
  const results: PluginResult[] = [];
  for (const script of scripts) results.push(await runScript(host, script));
  return combineResults(results);
}

/** One part's work; a part that fails is logged and counts as done, as cloudbase-init's _process_part. */
async function runStep(ctx: PluginContext, step: WindowsUserDataStep): Promise<PluginResult> {
  try {
    if (step.kind === 'cloud-config') return await applyCloudConfig(ctx, step.config);
    if (step.kind === 'heat')
      return await handleHeatPart(ctx, step, () => runScripts(ctx, step.scripts ?? [], step.ec2 === true));
    return await runScripts(ctx, step.scripts, step.ec2 === true);
  } catch (err) {
    ctx.log.error(`UserDataPlugin: ${step.part}: ${describeError(err)}`);
    return DONE;
  }
}

/**
 * cloudbase-init's get_instance_data(), what a `## template: jinja` user data is rendered with: v1 (instance id, host
 * name, public keys, under both key spellings), ds.meta_data (the source's metadata, else a copy of v1 with the host
 * name), and v1's keys again at the top level.
 */
function templateData(instance: InstanceData | undefined): Record<string, unknown> | undefined {
  if (!instance) return undefined;
  const hostname = instance.localHostname ?? null;
  const ids = {
    'instance-id': instance.instanceId,
    instance_id: instance.instanceId,
    'local-hostname': hostname,
    local_hostname: hostname,
  };
  const metaData = Object.keys(instance.metadata).length > 0 ? instance.metadata : { ...ids, hostname };
  const v1 = { ...ids, public_ssh_keys: instance.publicKeys };
  return {
    v1,
    ds: { _doc: 'EXPERIMENTAL: the structure and format of ds may change without notice', meta_data: metaData },
    ...v1,
  };
}

/** %VAR% expanded from the environment (names in any case), as os.path.expandvars does on Windows. */
function expandWindowsVars(path: string, env: NodeJS.ProcessEnv): string {
  const byName = new Map(Object.entries(env).map(([k, v]) => [k.toLowerCase(), v]));
  return path.replace(/%([^%]+)%/g, (whole, name: string) => byName.get(name.toLowerCase()) ?? whole);
}

/** userdata_save_path: the user data as the service decoded it (gzip undone), written to the expanded path. */
async function saveUserData(ctx: PluginContext, raw: Uint8Array, path: string): Promise<void> {
  const target = expandWindowsVars(path, ctx.env);
  const data = isGzip(raw) ? await gunzipBytes(raw, 32 * 1024 * 1024) : raw;
  const dir = target.replace(/[\\/][^\\/]*$/, '');
  if (dir !== target && dir !== '') await ctx.platform.mkdir(dir);
  await ctx.platform.writeFile(target, data, { mode: 0o600 });
  ctx.log.debug(`Writing userdata to: ${target}`);
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
    const path = ctx.conf.str('userdata_save_path');
    if (path !== undefined) await saveUserData(ctx, raw, path);
    if (ctx.conf.bool('process_userdata') === false) {
      ctx.log.info('process_userdata is false: the user data is not processed');
      return DONE;
    }
    const ud = await processWindowsUserData(raw, { log: ctx.log, templateData: templateData(ctx.instance) });
    for (const i of ud.ignored)
      ctx.log.warn(`User data part ${i.part} (${i.contentType}) is not handled on Windows; skipped`);
    if (ud.steps.length === 0 && ud.errors.length > 0)
      throw new PluginError('UserDataPlugin', ud.errors.map((e) => `${e.part}: ${e.message}`).join('; '));
    // As cloudbase-init's _process_user_data: the parts run in order, the plugin's result is the last part's, and a
    // part that asks for a reboot (1001, 1003) ends the walk: the parts after it run at a later boot, if ever.
    let result: PluginResult = DONE;
    let persistent = false;
    for (const [i, step] of ud.steps.entries()) {
      result = await runStep(ctx, step);
      persistent ||= result.persistent === true;
      if (result.reboot && i < ud.steps.length - 1) {
        ctx.log.info(
          `UserDataPlugin: ${step.part} asked for a reboot; the ${ud.steps.length - 1 - i} part(s) after it are not run now`,
        );
        break;
      }
    }
    // kiln honours EC2's <persist>true</persist> as EC2Launch does (cloudbase-init ignores it): the user data runs at
    // every boot.
    if (persistent)
      ctx.log.info('UserDataPlugin: the user data is persisted (<persist>true</persist>): it runs again at every boot');
    return persistent ? { ...result, persistent: true } : { status: result.status, reboot: result.reboot };
  },
};
