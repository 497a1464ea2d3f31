// The runner's user-data step on Linux: userdata/ splits and merges, scripts are written, boothooks and part handlers
// run.
import { posix } from 'node:path';
import { runPartHandlers } from '../userdata/part-handlers';
import { runBoothooks, writeUserScripts, type ScriptRunContext } from '../userdata/linux-scripts';
import { processUserData } from '../userdata/process-user-data';
import { CT } from '../userdata/part-types';
import type { UserDataInput, UserDataOutcome } from './runner-deps';

/** One blob (user, vendor or vendor2): its cloud-config for the merge, its scripts on disk for the final stage. */
export async function processUserDataOnLinux(input: UserDataInput): Promise<UserDataOutcome> {
  const key = input.kind === 'user' ? 'userData' : input.kind === 'vendor' ? 'vendorData' : 'vendorData2';
  const p = input.platform;
  const urlcache = posix.join(input.instanceDir, 'urlcache');
  const result = await processUserData(
    { [key]: input.raw },
    {
      ...(input.instanceData ? { instanceData: input.instanceData } : {}),
      log: input.log,
      // #include-once content is kept per instance, as cloud-init keeps instance/urlcache.
      includeOnceCache: {
        get: async (url) => {
          const f = posix.join(urlcache, Buffer.from(url).toString('base64url'));
          return (await p.exists(f)) ? p.readFile(f) : undefined;
        },
        set: (url, data) =>
          p.writeFile(posix.join(urlcache, Buffer.from(url).toString('base64url')), data, { mode: 0o600 }),
      },
    },
  );
  const cfg =
    input.kind === 'user'
      ? result.userCloudConfig
      : input.kind === 'vendor'
        ? result.vendorCloudConfig
        : result.vendor2CloudConfig;
  const processed = result.processed[input.kind] ?? [];
  const cloudConfigParts = result.parts
    .filter(
      (x) => x.source === input.kind && (x.contentType === CT.cloudConfig || x.contentType === CT.cloudConfigJsonp),
    )
    .map((x) => x.name);
  if (input.onlyProcess) return { cloudConfig: cfg, processed, cloudConfigParts };
  const ctx: ScriptRunContext = {
    platform: p,
    instanceId: input.instance.instanceId,
    log: input.log,
    cloudDir: input.paths.cloudDir,
    outputLog: '/var/log/cloud-init-output.log',
  };
  await writeUserScripts(ctx, result.scripts);
  const warnings = result.errors.map((e) => `${e.part}: ${e.message}`);
  for (const o of await runBoothooks(ctx, result.boothooks))
    if (!o.ok) warnings.push(`boothook ${o.name} failed: ${o.error ?? `exit ${o.code}`}`);
  for (const o of await runPartHandlers(ctx, result))
    if (!o.ok) warnings.push(`part handler ${o.name} failed: ${o.error ?? 'error'}`);
  return { cloudConfig: cfg, warnings, processed, cloudConfigParts };
}
