// cc_disk_setup: partitions disks (disk_setup: MBR via sfdisk, GPT via sgdisk) and makes filesystems (fs_setup) in the
// target.
import { posix } from 'node:path';
import type { CloudConfigValue } from '../config/schema/cloud-config-types';
import type { Platform } from '../platform/platform';
import { isTrue } from './support/config-values';
import { configModule } from './support/config-module';
import { isMapping, OwnParser } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import type { Module, ModuleContext } from './module';
import { describeError } from '../util/errors';
import { pyTruthy } from '../util/python-truthy';

interface Partition {
  node: string;
  type: string;
}

/** device_aliases once read: an alias name to the disk it names. */
type DeviceAliases = CloudConfigValue<'device_aliases'>;

/** The device behind a name: device_aliases first, then the datasource's meta names (ephemeral0 …). */
function aliasToDevice(ctx: ModuleContext, aliases: DeviceAliases, cand: string): string {
  const named = aliases[cand];
  const bdm = ctx.instance?.metadata?.['block-device-mapping'];
  const meta = isMapping(bdm) ? bdm[named ?? cand] : undefined;
  if (typeof meta === 'string' && meta) return meta.startsWith('/') ? meta : `/dev/${meta}`;
  return named ?? cand;
}

async function sh(platform: Platform, script: string, ...args: string[]) {
  return platform.run(['/bin/sh', '-c', script, 'sh', ...args], { allowFailure: true });
}

/** A block device or an image file (kiln also prepares disk images offline); anything else is refused. */
async function isDiskLike(platform: Platform, dev: string): Promise<boolean> {
  return (await sh(platform, '[ -b "$1" ] || [ -f "$1" ]', dev)).code === 0;
}

async function partitionsOf(platform: Platform, dev: string): Promise<{ label?: string; parts: Partition[] }> {
  const r = await platform.run(['sfdisk', '--json', dev], { allowFailure: true });
  if (r.code !== 0 || !r.stdout.trim()) return { parts: [] };
  const pt = (
    JSON.parse(r.stdout) as { partitiontable?: { label?: string; partitions?: Array<{ node: string; type: string }> } }
  ).partitiontable;
  return {
    ...(pt?.label ? { label: pt.label } : {}),
    parts: (pt?.partitions ?? []).map((p) => ({ node: p.node, type: p.type.toLowerCase() })),
  };
}

/** blkid's TYPE and LABEL of DEV ('' when there is no filesystem). */
async function probeFs(platform: Platform, dev: string): Promise<{ type: string; label: string }> {
  const r = await platform.run(['blkid', '-c', '/dev/null', '-p', '-o', 'export', dev], { allowFailure: true });
  const get = (k: string) => new RegExp(`^${k}=(.*)$`, 'm').exec(r.stdout)?.[1] ?? '';
  return { type: get('TYPE'), label: get('LABEL') };
}

async function sizeInSectors(platform: Platform, dev: string): Promise<number> {
  const r = await sh(
    platform,
    'if [ -b "$1" ]; then echo $(( $(blockdev --getsize64 "$1") / $(blockdev --getss "$1") )); else echo $(( $(stat -c %s "$1") / 512 )); fi',
    dev,
  );
  const n = Number(r.stdout.trim());
  if (r.code !== 0 || !Number.isFinite(n)) throw new Error(`Failed to get ${dev} size: ${r.stderr.trim()}`);
  return n;
}

/** A partition of a layout: its percent of the disk, alone (type 83 on MBR) or with its partition type. */
export type LayoutPart = number | readonly [number, string | number];

/** A layout mkpart cannot read, and its words: the disk's turn fails with them where upstream's fails. */
interface UnreadableLayout {
  readonly unreadable: string;
}

/**
 * layout as mkpart reads it: false (the disk is not partitioned), true (one partition on the whole disk), 'remove'
 * (its partition table is purged), its partitions, or why it cannot be read.
 */
type PartitionLayout = boolean | 'remove' | readonly LayoutPart[] | UnreadableLayout;

/** A disk_setup definition as mkpart reads it. */
interface DiskDefinition {
  /** table_type when a string, else 'mbr' (mkpart refuses any but mbr and gpt). */
  readonly tableType: string;
  readonly layout: PartitionLayout;
  /** is_true of overwrite. */
  readonly overwrite: boolean;
}

/** An fs_setup entry as mkfs reads it, its device not yet looked up in device_aliases. */
interface FilesystemDefinition {
  readonly device: string | undefined;
  readonly label: string | undefined;
  readonly filesystem: string | undefined;
  /** str() of partition (default 'any'): a partition number, '', auto, any or none (else the entry fails). */
  readonly partition: string;
  /** is_true of overwrite. */
  readonly overwrite: boolean;
  /**
   * The file system type to replace with partition 'any': replace_fs as given, compared with each device's type as
   * find_device_node compares it (so only a string can match).
   */
  readonly replaceFs: string | undefined;
  /** The command line to run instead of mkfs, its %(…)s not yet filled; none when cmd is absent or empty. */
  readonly cmd: string | undefined;
  /** extra_opts: a list (each its str()) or a string split at whitespace. */
  readonly extraOpts: readonly string[];
}

/** A disk_setup or fs_setup entry that is not a mapping, as JSON: warned about in its turn and skipped. */
interface NotAMapping {
  readonly notAMapping: string;
}

/** The layout's partitions; true for the whole disk; a layout mkpart cannot read is refused in its words. */
function layoutParts(layout: true | readonly LayoutPart[] | UnreadableLayout): true | readonly LayoutPart[] {
  if (layout !== true && 'unreadable' in layout) throw new Error(layout.unreadable);
  return layout;
}

/** get_partition_mbr_layout: the sfdisk script (sizes in sectors, the last partition takes the rest). */
export function mbrLayout(size: number, layout: true | readonly LayoutPart[]): string {
  if (layout === true) return '0,';
  if (layout.length > 4) throw new Error('Only simply partitioning is allowed.');
  return layout
    .map((p, i) => {
      const [percent, type] = typeof p === 'number' ? [p, 83] : p;
      return i === layout.length - 1 ? `,,${type}` : `,${Math.trunc(size * (percent / 100))},${type}`;
    })
    .join('\n');
}

/** get_partition_gpt_layout: [type code or undefined, start, end] per partition for sgdisk -n. */
export function gptLayout(
  size: number,
  layout: true | readonly LayoutPart[],
): Array<[string | undefined, string, string]> {
  if (layout === true) return [[undefined, '0', '0']];
  const specs = layout.map((p): [string | undefined, string, string] => {
    const [percent, type] = typeof p === 'number' ? [p, undefined] : p;
    // sgdisk -t takes the type as exec_mkpart_gpt gives it: str() right-padded with 0 to 4 characters (82 -> 8200).
    const code = type === undefined ? undefined : String(type).padEnd(4, '0');
    return [code, '0', `+${Math.trunc(size * (percent / 100))}`];
  });
  (specs[specs.length - 1] as [string | undefined, string, string])[2] = '0';
  return specs;
}

/** check_partition_layout: true when the disk already has the asked-for partitions. */
function layoutMatches(tableType: string, found: Partition[], layout: true | readonly LayoutPart[]): boolean {
  if (layout === true) return found.length >= 1;
  if (found.length !== layout.length) return false;
  if (tableType !== 'mbr') return true;
  return layout.every((p, i) => {
    const want = String(typeof p === 'number' ? 83 : p[1]).toLowerCase();
    return (found[i] as Partition).type === want || (found[i] as Partition).type === want.replace(/^0x/, '');
  });
}
async function rereadTable(platform: Platform, dev: string): Promise<void> {
  if ((await sh(platform, '[ -b "$1" ]', dev)).code !== 0) return;
  const r = await sh(
    platform,
    'if command -v partprobe >/dev/null; then partprobe "$1"; else blockdev --rereadpt "$1"; fi; command -v udevadm >/dev/null && udevadm settle || true',
    dev,
  );
  if (r.code !== 0) throw new Error(`Failed reading the partition table of ${dev}: ${r.stderr.trim()}`);
}

async function mkpart(ctx: ModuleContext, device: string, def: DiskDefinition): Promise<void> {
  const { layout, tableType, overwrite } = def;
  if (layout === false) {
    ctx.log.debug('Device is not to be partitioned, skipping');
    return;
  }
  if (!(await isDiskLike(ctx.platform, device))) throw new Error(`Device ${device} is not a disk device!`);
  if (layout === 'remove') {
    for (const p of (await partitionsOf(ctx.platform, device)).parts)
      await ctx.platform.run(['wipefs', '--all', p.node], { allowFailure: true });
    await sh(
      ctx.platform,
      'dd if=/dev/zero of="$1" bs=1M count=1 conv=notrunc status=none && size=$(if [ -b "$1" ]; then blockdev --getsize64 "$1"; else stat -c %s "$1"; fi) && dd if=/dev/zero of="$1" bs=1M count=1 seek=$(( size / 1048576 - 1 )) conv=notrunc status=none',
      device,
    );
    await rereadTable(ctx.platform, device);
    return;
  }
  if (tableType !== 'mbr' && tableType !== 'gpt')
    throw new Error(`table_type '${tableType}' is not supported (mbr or gpt)`);
  const existing = await partitionsOf(ctx.platform, device);
  const parts = layoutParts(layout);
  if (layoutMatches(tableType, existing.parts, parts)) {
    ctx.log.debug('Device partitioning layout matches');
    return;
  }
  if (!overwrite && (existing.parts.length > 0 || (await probeFs(ctx.platform, device)).type)) {
    ctx.log.debug(`Skipping partitioning on configured device ${device}`);
    return;
  }
  const size = await sizeInSectors(ctx.platform, device);
  if (tableType === 'mbr') {
    const script = mbrLayout(size, parts);
    ctx.log.debug(`   Layout is: ${script}`);
    const r = await ctx.platform.run(
      ['sfdisk', '--Linux', '--unit=S', '--force', '--no-reread', '--no-tell-kernel', device],
      { input: `${script}\n`, allowFailure: true },
    );
    if (r.code !== 0) throw new Error(`Failed to partition device ${device}: ${r.stderr.trim()}`);
  } else {
    const specs = gptLayout(size, parts);
    await ctx.platform.run(['sgdisk', '-Z', device], { allowFailure: true });
    for (const [i, [type, start, end]] of specs.entries()) {
      await ctx.platform.run(['sgdisk', '-n', `${i + 1}:${start}:${end}`, device]);
      if (type !== undefined) await ctx.platform.run(['sgdisk', '-t', `${i + 1}:${type}`, device]);
    }
  }
  await rereadTable(ctx.platform, device);
}

/** The device node of partition N of DEV (vda1, nvme0n1p1, or an image's partition is not addressable). */
function partitionNode(dev: string, n: string): string {
  return /\d$/.test(posix.basename(dev)) ? `${dev}p${n}` : `${dev}${n}`;
}

async function mkfs(ctx: ModuleContext, def: FilesystemDefinition): Promise<void> {
  const { label, partition, filesystem: fsType, overwrite } = def;
  let device = def.device;
  if (!device) throw new Error('fs_setup entry has no device');
  if (partition === '' || /^\d+$/.test(partition)) {
    if (/^\d+$/.test(partition)) device = partitionNode(device, partition);
    const fs = await probeFs(ctx.platform, device);
    if (fs.label === (label ?? '') && fs.type === (fsType ?? '')) {
      if (!overwrite) {
        ctx.log.debug(`Device ${device} has required file system`);
        return;
      }
      ctx.log.warn(`Destroying filesystem on ${device}`);
    }
  } else if (partition.toLowerCase() === 'auto' || partition.toLowerCase() === 'any') {
    const labelMatch = partition.toLowerCase() === 'auto';
    const parts = (await partitionsOf(ctx.platform, device)).parts.map((p) => p.node);
    const candidates = parts.length > 0 ? parts : [device];
    let free: string | undefined;
    for (const c of candidates) {
      const fs = await probeFs(ctx.platform, c);
      if (fs.type === fsType && (!labelMatch || fs.label === (label ?? ''))) {
        ctx.log.debug('Found filesystem match, skipping formating.');
        return;
      }
      if (!fs.type && free === undefined) free = c;
      // find_device_node replaces only when the label need not match (partition 'any').
      if (!labelMatch && fs.type && fs.type === def.replaceFs && free === undefined) free = c;
    }
    if (!free) {
      ctx.log.debug('No device available that matches request. Skipping fs creation');
      return;
    }
    device = free;
  } else if (partition.toLowerCase() !== 'none') {
    throw new Error(`fs_setup partition '${partition}' is not a number, auto, any or none`);
  }
  let argv: string[];
  if (def.cmd !== undefined) {
    const text = def.cmd
      .replace(/%\(label\)s/g, label ?? 'None')
      .replace(/%\(filesystem\)s/g, fsType ?? 'None')
      .replace(/%\(device\)s/g, device);
    argv = ['/bin/sh', '-c', text];
  } else {
    if (!fsType) throw new Error(`No way to create filesystem '${label ?? ''}'. fs_type or fs_cmd must be set.`);
    const which = await sh(ctx.platform, 'command -v "mkfs.$1" || command -v "mk$1"', fsType);
    const mk = which.stdout.trim().split('\n')[0];
    if (which.code !== 0 || !mk) {
      ctx.log.warn(`Cannot create fstype '${fsType}'.  No mkfs.${fsType} command`);
      return;
    }
    argv = [mk];
    if (label) argv.push('-L', label);
    const whole =
      (await sh(ctx.platform, '[ -f "$1" ] || [ -e "/sys/block/$(basename "$(readlink -f "$1")")" ]', device)).code ===
      0;
    if (overwrite || whole) {
      const force = fsType.toLowerCase().includes('ext')
        ? '-F'
        : ['btrfs', 'xfs', 'reiserfs', 'swap'].includes(fsType.toLowerCase())
          ? '-f'
          : '';
      if (force) argv.push(force);
      else ctx.log.warn(`Force flag for ${fsType} is unknown.`);
    }
    argv.push(...def.extraOpts);
    argv.push(device);
  }
  ctx.log.debug(`Creating file system ${label ?? ''} on ${device}`);
  const r = await ctx.platform.run(argv, { allowFailure: true });
  await ctx.output(r.stdout + r.stderr);
  if (r.code !== 0) throw new Error(`Failed to exec of '${argv.join(' ')}': ${r.stderr.trim()}`);
}

/** layout as mkpart reads it: a Python-false one is none, 'remove' in any case purges, each percent its Number(). */
function readLayout(layout: unknown): PartitionLayout {
  // `if … or not layout: return`: an empty list or mapping is as if absent too.
  if (!pyTruthy(layout)) return false;
  if (layout === true) return true;
  if (typeof layout === 'string' && layout.toLowerCase() === 'remove') return 'remove';
  if (!Array.isArray(layout) || layout.length === 0) return { unreadable: 'Partition layout is invalid' };
  const parts: LayoutPart[] = [];
  for (const p of layout) {
    if (!Array.isArray(p)) parts.push(Number(p));
    else if (p.length !== 2) return { unreadable: `Partition was incorrectly defined: ${JSON.stringify(p)}` };
    else parts.push([Number(p[0]), typeof p[1] === 'number' ? p[1] : String(p[1])]);
  }
  return parts;
}

/** disk_setup as the module reads it: each disk's definition in order; none when disk_setup is not a mapping. */
function readDiskSetup(value: unknown): ReadonlyMap<string, DiskDefinition | NotAMapping> | undefined {
  if (!isRecord(value)) return undefined;
  const disks = new Map<string, DiskDefinition | NotAMapping>();
  for (const [disk, def] of Object.entries(value)) {
    disks.set(
      disk,
      isRecord(def)
        ? {
            tableType: typeof def.table_type === 'string' ? def.table_type : 'mbr',
            layout: readLayout(def.layout),
            overwrite: isTrue(def.overwrite),
          }
        : { notAMapping: JSON.stringify(def) },
    );
  }
  return disks;
}

/** fs_setup as the module reads it: each entry in order; none when fs_setup is not a list. */
function readFsSetup(value: unknown): ReadonlyArray<FilesystemDefinition | NotAMapping> | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.map((def: unknown): FilesystemDefinition | NotAMapping => {
    if (!isRecord(def)) return { notAMapping: JSON.stringify(def) };
    const { cmd, extra_opts: opts } = def;
    return {
      device: typeof def.device === 'string' ? def.device : undefined,
      label: typeof def.label === 'string' ? def.label : undefined,
      filesystem: typeof def.filesystem === 'string' ? def.filesystem : undefined,
      partition: String(def.partition ?? 'any'),
      overwrite: isTrue(def.overwrite),
      replaceFs: typeof def.replace_fs === 'string' && def.replace_fs !== '' ? def.replace_fs : undefined,
      cmd:
        cmd === undefined || cmd === null || cmd === '' || (Array.isArray(cmd) && cmd.length === 0)
          ? undefined
          : Array.isArray(cmd)
            ? cmd.map(String).join(' ')
            : String(cmd),
      extraOpts: Array.isArray(opts)
        ? opts.map(String)
        : typeof opts === 'string'
          ? opts.split(/\s+/).filter(Boolean)
          : [],
    };
  });
}

/** An fs_setup entry with its device looked up: '<alias>.<n>' names partition n of the alias's disk. */
function withDevice(ctx: ModuleContext, aliases: DeviceAliases, def: FilesystemDefinition): FilesystemDefinition {
  if (def.device === undefined) return def;
  const m = /^(.*)\.(\d+)$/.exec(def.device);
  if (m && !def.device.startsWith('/'))
    return { ...def, device: aliasToDevice(ctx, aliases, m[1] as string), partition: m[2] as string };
  return { ...def, device: aliasToDevice(ctx, aliases, def.device) };
}

export const diskSetup: Module = configModule({
  name: 'disk_setup',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['disk_setup', 'fs_setup'],
  configKeys: {
    // null is none, as before; any other value as given, for the schema to judge.
    device_aliases: (aliases: unknown) => (aliases === null ? undefined : aliases),
    // 25.1's mkpart takes float or numeric-string percents and a non-boolean overwrite, which its schema rejects.
    disk_setup: new OwnParser(readDiskSetup),
    // 25.1's mkfs takes a numeric partition (str() of it), which its schema's oneOf of words rejects.
    fs_setup: new OwnParser(readFsSetup),
  },
  async run(ctx, cfg): Promise<void> {
    const aliases = cfg.device_aliases ?? {};
    // Like cloud-init, a failed disk or filesystem is reported and the next one is still tried.
    const report = (what: string, err: unknown) => {
      const msg = `${what}: ${describeError(err)}`;
      ctx.recoverable('ERROR', msg);
    };
    for (const [disk, def] of cfg.disk_setup ?? []) {
      if ('notAMapping' in def) {
        ctx.log.warn(`Invalid disk definition for ${disk}`);
        continue;
      }
      try {
        await mkpart(ctx, aliasToDevice(ctx, aliases, disk), def);
      } catch (err) {
        report(`disk_setup.${disk}: Failed partitioning operation`, err);
      }
    }
    for (const [i, def] of (cfg.fs_setup ?? []).entries()) {
      if ('notAMapping' in def) {
        ctx.log.warn(`Invalid file system definition: ${def.notAMapping}`);
        continue;
      }
      try {
        await mkfs(ctx, withDevice(ctx, aliases, def));
      } catch (err) {
        report(`fs_setup[${i}]: Failed during filesystem operation`, err);
      }
    }
  },
});
