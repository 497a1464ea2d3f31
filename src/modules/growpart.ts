// cc_growpart: grows the partitions behind the listed mount points (default '/') to fill their disks, every boot.
import { growPartition, platformDiskIo } from '../devices/partition-grow';
import { CommandError, type CommandFailure } from '../util/command-error';
import { pyStr } from '../util/python-str';
import { isFalse } from './support/config-values';
import { configModule } from './support/config-module';
import { readConfigValue, WarningReader } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { type Module, type ModuleContext, ModuleError } from './module';
import { blockInfo, mountFor } from '../platform/linux/mount-info';
import { processExecutionMessage } from '../util/process-execution-message';

type Outcome = { entry: string; action: 'CHANGED' | 'NOCHANGE' | 'SKIPPED' | 'FAILED'; msg: string };

/** ResizeGrowPart.available: `growpart --help` runs and mentions its --update option. */
async function growpartAvailable(ctx: ModuleContext): Promise<boolean> {
  const r = await ctx.platform.run(['growpart', '--help'], { env: { LANG: 'C' }, allowFailure: true });
  return r.code === 0 && /--update\s+/.test(r.stdout);
}

/** get_size: the byte size of a partition device (or image file); undefined where it cannot be read. */
async function sizeOf(ctx: ModuleContext, path: string): Promise<number | undefined> {
  const r = await ctx.platform.run(
    ['/bin/sh', '-c', 'if [ -b "$1" ]; then blockdev --getsize64 "$1"; else stat -L -c %s "$1"; fi', 'sh', path],
    { allowFailure: true },
  );
  const n = Number(r.stdout.trim());
  return r.code === 0 && r.stdout.trim() !== '' && Number.isFinite(n) ? n : undefined;
}

/** The failure of ARGV as cloud-init's ProcessExecutionError shows it; rethrows any other error. */
async function runCommand(ctx: ModuleContext, argv: string[]): Promise<CommandFailure | undefined> {
  try {
    await ctx.platform.run(argv, { env: { LANG: 'C' } });
    return undefined;
  } catch (err) {
    if (err instanceof CommandError) return err.failure;
    throw err;
  }
}

/**
 * ResizeGrowPart.resize: a dry run first (exit 1: nothing to grow), then growpart itself; the partition's size before
 * and after.
 */
async function growWithTool(
  ctx: ModuleContext,
  disk: string,
  part: number,
  partdev: string,
): Promise<{ old: number | undefined; new: number | undefined } | { failed: CommandFailure }> {
  const before = await sizeOf(ctx, partdev);
  const dry = await runCommand(ctx, ['growpart', '--dry-run', disk, String(part)]);
  if (dry) {
    if (dry.code === 1) return { old: before, new: before };
    ctx.log.warn(`Failed growpart --dry-run for (${disk}, ${part})`);
    return { failed: dry };
  }
  const grown = await runCommand(ctx, ['growpart', disk, String(part)]);
  if (grown) {
    ctx.log.warn(`Failed: growpart ${disk} ${part}`);
    return { failed: grown };
  }
  return { old: before, new: await sizeOf(ctx, partdev) };
}

/** _call_resizer's entry for sizes OLD and NEW of BLOCKDEV, partition PART of DISK. */
function sizeOutcome(
  entry: string,
  disk: string,
  part: number,
  blockdev: string,
  old: number | undefined,
  now: number | undefined,
): Outcome {
  if (old === now) return { entry, action: 'NOCHANGE', msg: `no change necessary (${disk}, ${part})` };
  if (old === undefined || now === undefined)
    return { entry, action: 'CHANGED', msg: `changed (${blockdev}) size, new size is unknown` };
  return { entry, action: 'CHANGED', msg: `changed (${blockdev}) from ${old} to ${now}` };
}

async function resizeOne(ctx: ModuleContext, mode: string, entry: string): Promise<Outcome> {
  let info: Awaited<ReturnType<typeof blockInfo>>;
  // The device cc_growpart names in its messages: the entry itself, or the mount's source (/dev/root resolved).
  let blockdev = entry;
  if (entry.startsWith('/dev/')) info = await blockInfo(ctx.platform, { path: entry });
  else {
    const m = await mountFor(ctx.platform, entry);
    if (!m) return { entry, action: 'SKIPPED', msg: 'unable to find mount point (no /proc/self/mountinfo entry)' };
    info = await blockInfo(ctx.platform, { devno: m.devno });
    blockdev = m.source;
  }
  if (!info) return { entry, action: 'SKIPPED', msg: 'unable to find its block device in /sys' };
  if (!info.disk || !info.partition)
    return { entry, action: 'SKIPPED', msg: `device '${info.device}' not a partition` };
  if (!blockdev.startsWith('/dev/') || blockdev === '/dev/root') blockdev = info.device;
  const { disk, partition } = info;
  if (mode === 'auto') {
    const r = await growPartition(platformDiskIo(ctx.platform, disk), partition);
    if (r.status === 'changed') {
      // Tell the kernel about the new size of the (mounted) partition, as growpart does.
      const px = await ctx.platform.run(['partx', '--update', '--nr', String(partition), disk], { allowFailure: true });
      if (px.code !== 0)
        ctx.log.warn(
          `partx --update ${disk} ${partition} failed; the new size applies after a reboot: ${px.stderr.trim()}`,
        );
      return sizeOutcome(entry, disk, partition, blockdev, r.oldSectors * 512, r.newSectors * 512);
    }
    if (r.status === 'nochange') {
      ctx.log.debug(`growpart: ${disk} ${partition} needs no change: ${r.reason}`);
      return sizeOutcome(entry, disk, partition, blockdev, 0, 0);
    }
    if (!(await growpartAvailable(ctx)))
      return {
        entry,
        action: 'FAILED',
        msg: `kiln cannot grow (${disk}, ${partition}) itself (${r.reason}) and the growpart tool is not available`,
      };
    ctx.log.debug(`growpart: kiln cannot grow ${disk} ${partition} itself (${r.reason}); trying the growpart tool`);
  }
  const grown = await growWithTool(ctx, disk, partition, blockdev);
  if ('failed' in grown)
    return {
      entry,
      action: 'FAILED',
      msg: `failed to resize: disk=${disk}, ptnum=${partition}: ${processExecutionMessage(grown.failed)}`,
    };
  return sizeOutcome(entry, disk, partition, blockdev, grown.old, grown.new);
}

const MODE_GIVEN = Symbol('growpart mode as given');

/**
 * growpart as cc_growpart reads it: a mapping, else only warned about and growpart left alone (read as mode 'off',
 * not as the default config an absent growpart means); mode 'off' or another is_false word (false: the deprecated
 * spelling) turns it off; ignore_growroot_disabled is `not is_false`; devices get_cfg_option_list's (null is none).
 */
const growpartSetting = new WarningReader(
  (value) => {
    if (!isRecord(value)) return undefined;
    const read = readConfigValue(
      {
        mode: (mode: unknown) => (mode === 'off' || !isFalse(mode) ? mode : false),
        devices: 'list',
        ignore_growroot_disabled: 'not-false',
      },
      value,
    ) as Record<string | symbol, unknown>;
    // The mode as written, for the messages (out of the schema's sight: a symbol key is not enumerable data).
    if (Object.hasOwn(value, 'mode')) read[MODE_GIVEN] = value.mode;
    return read;
  },
  () => "'growpart' in config was not a dict",
  { mode: 'off' },
);

export const growpart: Module = configModule({
  name: 'growpart',
  stage: 'init',
  frequency: 'always',
  distros: 'all',
  activateBy: [],
  configKeys: { growpart: growpartSetting },
  async run(ctx, cfg): Promise<void> {
    const my = cfg.growpart ?? { mode: 'auto', devices: ['/'], ignore_growroot_disabled: false };
    const mode = my.mode ?? 'auto';
    if (mode === false || mode === 'off') {
      const given = (my as { [MODE_GIVEN]?: unknown })[MODE_GIVEN] ?? mode;
      if (given !== 'off')
        ctx.log.deprecated(
          `Growpart's 'mode' key with value '${pyStr(given)}' is deprecated in 22.2 and scheduled to be removed in ` +
            "27.2. Use 'off' instead.",
        );
      ctx.log.debug(`growpart disabled: mode=${pyStr(given)}`);
      return;
    }
    if (my.ignore_growroot_disabled !== true) {
      if (await ctx.platform.exists('/etc/growroot-disabled')) {
        ctx.log.debug('growpart disabled: /etc/growroot-disabled exists');
        ctx.log.debug('use ignore_growroot_disabled to ignore');
        return;
      }
    }
    const devices = my.devices ?? ['/'];
    if (devices.length === 0) {
      ctx.log.debug('growpart: empty device list');
      return;
    }
    if (mode !== 'auto') {
      // resizer_factory: a named mode must be available, else the module fails with its ValueError (the schema admits
      // no unknown mode; in auto mode kiln grows the partition itself, so there is always a resizer).
      if (mode === 'gpart' || !(await growpartAvailable(ctx))) {
        const msg = `mode ${mode} not available`;
        ctx.log.debug(`growpart unable to find resizer for '${mode}': ${msg}`);
        throw Object.assign(new ModuleError('growpart', msg), { pythonName: 'ValueError' });
      }
    }
    // Each result is only logged, as cc_growpart's handle does: a FAILED entry does not fail the module.
    for (const entry of devices) {
      const o = await resizeOne(ctx, mode, entry);
      if (o.action === 'CHANGED') ctx.log.info(`'${o.entry}' resized: ${o.msg}`);
      else ctx.log.debug(`'${o.entry}' ${o.action}: ${o.msg}`);
    }
  },
});
