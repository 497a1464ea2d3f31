// `devel run-user-data`: processes a user-data file and runs its scripts through the platform, reporting each.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import {
  runBoothooks,
  runScriptsIn,
  scriptDir,
  writeUserScripts,
  type ScriptOutcome,
  type ScriptRunContext,
} from '../userdata/linux-scripts';
import { runPartHandlers } from '../userdata/part-handlers';
import { processUserData } from '../userdata/process-user-data';
import { processWindowsUserData, scriptsOf } from '../userdata/windows-user-data';
import { combineRequests, runWindowsScript, windowsHostFacts } from '../userdata/windows-runner';
import { describeError, UsageError } from '../util/errors';
import type { Command, CommandContext } from './command';
import { fsPromises } from '../util/on-demand-builtins';

async function readHostFile(path: string | undefined, what: string): Promise<Buffer | undefined> {
  if (path === undefined) return undefined;
  try {
    return await fsPromises().readFile(path);
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${path}: ${describeError(err)}`);
  }
}

function report(ctx: CommandContext, o: ScriptOutcome): void {
  ctx.io.out(`script ${o.path}: exit ${o.code}${o.error ? ` (${o.error})` : ''}\n`);
}

async function runLinux(
  ctx: CommandContext,
  platform: Platform,
  args: Record<string, unknown>,
  userData: Buffer,
): Promise<number> {
  const instanceId = (args['instance-id'] as string | undefined) ?? 'iid-kiln-devel';
  const vendorData = await readHostFile(args['vendor-data'] as string | undefined, 'vendor data');
  const idText = await readHostFile(args['instance-data'] as string | undefined, 'instance data');
  let instanceData: Record<string, unknown> | undefined;
  if (idText) {
    try {
      instanceData = JSON.parse(idText.toString('utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new UsageError(`instance data is not JSON: ${describeError(err)}`);
    }
  }
  const processed = await processUserData(
    { userData, ...(vendorData ? { vendorData } : {}) },
    { log: ctx.logger.for('user_data.py'), ...(instanceData ? { instanceData } : {}) },
  );
  for (const e of processed.errors) ctx.io.err(`error: ${e.part}: ${e.message}\n`);
  const rctx: ScriptRunContext = { platform, instanceId, log: ctx.logger.for('scripts.py') };
  const outcomes: ScriptOutcome[] = [];
  for (const o of await runBoothooks(rctx, processed.boothooks)) {
    report(ctx, o);
    outcomes.push(o);
  }
  for (const h of await runPartHandlers(rctx, processed)) {
    ctx.io.out(`part-handler ${h.name}: ${h.ok ? `handled ${h.handled.length} part(s)` : h.error}\n`);
    if (!h.ok) outcomes.push({ name: h.name, path: h.name, code: -1, ok: false, stdout: '', stderr: '' });
  }
  await writeUserScripts(rctx, processed.scripts);
  const dirs = [
    ...['per-once', 'per-boot', 'per-instance'].map((f) => posix.join('/var/lib/cloud/scripts', f)),
    scriptDir({ source: 'vendor', frequency: 'per-instance', frequencyFromType: false, kind: 'script' }, instanceId),
    scriptDir({ source: 'user', frequency: 'per-instance', frequencyFromType: false, kind: 'script' }, instanceId),
  ];
  for (const dir of dirs) {
    for (const o of await runScriptsIn(rctx, dir)) {
      report(ctx, o);
      outcomes.push(o);
    }
  }
  return processed.errors.length > 0 || outcomes.some((o) => !o.ok) ? 1 : 0;
}

async function runWindows(ctx: CommandContext, platform: Platform, userData: Buffer): Promise<number> {
  const processed = await processWindowsUserData(userData, { log: ctx.logger.for('userdata.py') });
  for (const e of processed.errors) ctx.io.err(`error: ${e.part}: ${e.message}\n`);
  for (const i of processed.ignored) ctx.io.err(`ignored: ${i.part} (${i.contentType})\n`);
  if (processed.certificate) ctx.io.out('certificate: found (for the WinRM certificate plugin)\n');
  const host = windowsHostFacts(ctx.env);
  const tempDir = ctx.env.TEMP ?? ctx.env.TMP ?? `${host.systemRoot}\\Temp`;
  const outcomes = [];
  for (const s of scriptsOf(processed)) {
    const o = await runWindowsScript({ platform, host, tempDir, log: ctx.logger.for('userdatautils.py') }, s);
    outcomes.push(o);
    ctx.io.out(
      `script ${o.name} [${o.kind}]: exit ${o.code} reboot=${o.reboot} run-again=${o.runAgain}${o.persist ? ' persist=true' : ''}${o.error ? ` (${o.error})` : ''}\n`,
    );
    if (ctx.debug) ctx.io.out(`  launch: ${o.launch.join(' ')}\n${o.stdout ? `  stdout: ${o.stdout.trim()}\n` : ''}`);
  }
  const all = combineRequests(outcomes);
  ctx.io.out(`plugin: reboot=${all.reboot} run-again=${all.runAgain}${all.persist ? ' persist=true' : ''}\n`);
  const failed = outcomes.some((o) => o.error !== undefined || (o.code !== 0 && !(o.code >= 1001 && o.code <= 1003)));
  return processed.errors.length > 0 || failed ? 1 : 0;
}

export const develRunUserDataCommand: Command = {
  words: ['devel', 'run-user-data'],
  summary: "process a user-data file and run its scripts as the stage would (Windows: cloudbase-init's rules)",
  usage: 'devel run-user-data FILE [--instance-id ID] [--vendor-data FILE] [--instance-data FILE]',
  faces: ['kiln', 'cloudbase-init'],
  positional: [1, 1],
  flags: {
    string: ['instance-id', 'vendor-data', 'instance-data'],
    help: [
      '--instance-id ID       instance id for the scripts folder and INSTANCE_ID (Linux; default iid-kiln-devel)',
      '--vendor-data FILE     vendor data processed below the user data (Linux)',
      '--instance-data FILE   instance-data.json for jinja templates (Linux)',
    ],
  },
  async run(ctx, args) {
    const userData = (await readHostFile(args.positional[0] as string, 'user data')) as Buffer;
    const platform = ctx.platform();
    return platform.os === 'windows'
      ? runWindows(ctx, platform, userData)
      : runLinux(ctx, platform, args.flags, userData);
  },
};
