// cc_disk_setup: partitions disks (disk_setup: MBR via sfdisk, GPT via sgdisk) and makes filesystems (fs_setup) in the
// target.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import { isTrue } from './support/config-values';
import type { CloudConfig, Module, ModuleContext } from './module';
import { describeError } from '../util/errors';

interface Partition {
  node: string;
  type: string;
}

/** The device behind a name: device_aliases first, then the datasource's meta names (ephemeral0 …). */
function aliasToDevice(ctx: ModuleContext, aliases: Record<string, unknown>, cand: string): string {
  const named = typeof aliases[cand] === 'string' ? (aliases[cand] as string) : undefined;
  const bdm = ctx.instance?.metadata?.['block-device-mapping'];
  const meta =
    bdm && typeof bdm === 'object' && !Array.isArray(bdm) ? (bdm as Record<string, unknown>)[named ?? cand] : undefined;
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

type LayoutItem = number | [number, string | number];

function layoutItems(layout: unknown): LayoutItem[] {
  if (!Array.isArray(layout) || layout.length === 0) throw new Error('Partition layout is invalid');
  return layout.map((p) => {
    if (Array.isArray(p)) {
      if (p.length !== 2) throw new Error(`Partition was incorrectly defined: ${JSON.stringify(p)}`);
      return [Number(p[0]), p[1] as string | number];
    }
    return Number(p);
  });
}

/** get_partition_mbr_layout: the sfdisk script (sizes in sectors, the last partition takes the rest). */
export function mbrLayout(size: number, layout: unknown): string {
  if (typeof layout === 'boolean') return '0,';
  const items = layoutItems(layout);
  if (items.length > 4) throw new Error('Only simply partitioning is allowed.');
  return items
    .map((p, i) => {
      const [percent, type] = Array.isArray(p) ? p : [p, 83];
      return i === items.length - 1 ? `,,${type}` : `,${Math.trunc(size * (percent / 100))},${type}`;
    })
    .join('\n');
}

/** get_partition_gpt_layout: [type code or undefined, start, end] per partition for sgdisk -n. */
export function gptLayout(size: number, layout: unknown): Array<[string | undefined, string, string]> {
  if (typeof layout === 'boolean') return [[undefined, '0', '0']];
  const items = layoutItems(layout);
  const specs = items.map((p): [string | undefined, string, string] => {
    const [percent, type] = Array.isArray(p) ? p : [p, undefined];
    return [type === undefined ? undefined : String(type), '0', `+${Math.trunc(size * (percent / 100))}`];
  });
  (specs[specs.length - 1] as [string | undefined, string, string])[2] = '0';
  return specs;
}

/** check_partition_layout: true when the disk already has the asked-for partitions. */
function layoutMatches(tableType: string, found: Partition[], layout: unknown): boolean {
  if (typeof layout === 'boolean') return layout && found.length >= 1;
  const items = layoutItems(layout);
  if (found.length !== items.length) return false;
  if (tableType !== 'mbr') return true;
  return items.every((p, i) => {
    const want = String(Array.isArray(p) ? p[1] : 83).toLowerCase();
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

async function mkpart(ctx: ModuleContext, device: string, def: Record<string, unknown>): Promise<void> {
  const overwrite = isTrue(def.overwrite);
  const layout = def.layout ?? false;
  const tableType = typeof def.table_type === 'string' ? def.table_type : 'mbr';
  if (!layout) {
    ctx.log.debug('Device is not to be partitioned, skipping');
    return;
  }
  if (!(await isDiskLike(ctx.platform, device))) throw new Error(`Device ${device} is not a disk device!`);
  if (typeof layout === 'string' && layout.toLowerCase() === 'remove') {
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
  if (layoutMatches(tableType, existing.parts, layout)) {
    ctx.log.debug('Device partitioning layout matches');
    return;
  }
  if (!overwrite && (existing.parts.length > 0 || (await probeFs(ctx.platform, device)).type)) {
    ctx.log.debug(`Skipping partitioning on configured device ${device}`);
    return;
  }
  const size = await sizeInSectors(ctx.platform, device);
  if (tableType === 'mbr') {
    const script = mbrLayout(size, layout);
    ctx.log.debug(`   Layout is: ${script}`);
    const r = await ctx.platform.run(
      ['sfdisk', '--Linux', '--unit=S', '--force', '--no-reread', '--no-tell-kernel', device],
      { input: `${script}\n`, allowFailure: true },
    );
    if (r.code !== 0) throw new Error(`Failed to partition device ${device}: ${r.stderr.trim()}`);
  } else {
    const specs = gptLayout(size, layout);
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

async function mkfs(ctx: ModuleContext, def: Record<string, unknown>): Promise<void> {
  const label = typeof def.label === 'string' ? def.label : undefined;
  let device = typeof def.device === 'string' ? def.device : undefined;
  const partition = String(def.partition ?? 'any');
  const fsType = typeof def.filesystem === 'string' ? def.filesystem : undefined;
  const overwrite = isTrue(def.overwrite);
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
      if (fs.type && isTrue(def.replace_fs) && fs.type === String(def.replace_fs) && free === undefined) free = c;
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
  const cmd = def.cmd;
  if (cmd !== undefined && cmd !== null && cmd !== '' && !(Array.isArray(cmd) && cmd.length === 0)) {
    const text = (Array.isArray(cmd) ? cmd.map(String).join(' ') : String(cmd))
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
    if (Array.isArray(def.extra_opts)) argv.push(...def.extra_opts.map(String));
    else if (typeof def.extra_opts === 'string') argv.push(...def.extra_opts.split(/\s+/).filter(Boolean));
    argv.push(device);
  }
  ctx.log.debug(`Creating file system ${label ?? ''} on ${device}`);
  const r = await ctx.platform.run(argv, { allowFailure: true });
  await ctx.output(r.stdout + r.stderr);
  if (r.code !== 0) throw new Error(`Failed to exec of '${argv.join(' ')}': ${r.stderr.trim()}`);
}

export const diskSetup: Module = {
  name: 'disk_setup',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['disk_setup', 'fs_setup'],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    const aliases =
      cfg.device_aliases && typeof cfg.device_aliases === 'object' && !Array.isArray(cfg.device_aliases)
        ? (cfg.device_aliases as Record<string, unknown>)
        : {};
    // Like cloud-init, a failed disk or filesystem is reported and the next one is still tried.
    const report = (what: string, err: unknown) => {
      const msg = `${what}: ${describeError(err)}`;
      ctx.recoverable('ERROR', msg);
    };
    const ds = cfg.disk_setup;
    if (ds && typeof ds === 'object' && !Array.isArray(ds)) {
      for (const [disk, def] of Object.entries(ds as Record<string, unknown>)) {
        if (!def || typeof def !== 'object' || Array.isArray(def)) {
          ctx.log.warn(`Invalid disk definition for ${disk}`);
          continue;
        }
        try {
          await mkpart(ctx, aliasToDevice(ctx, aliases, disk), def as Record<string, unknown>);
        } catch (err) {
          report(`disk_setup.${disk}: Failed partitioning operation`, err);
        }
      }
    }
    const fs = cfg.fs_setup;
    if (Array.isArray(fs)) {
      for (const [i, def] of fs.entries()) {
        if (!def || typeof def !== 'object' || Array.isArray(def)) {
          ctx.log.warn(`Invalid file system definition: ${JSON.stringify(def)}`);
          continue;
        }
        const d = { ...(def as Record<string, unknown>) };
        if (typeof d.device === 'string') {
          // 'ephemeral0.1' style names carry the partition after the dot.
          const m = /^(.*)\.(\d+)$/.exec(d.device);
          if (m && !d.device.startsWith('/')) {
            d.device = aliasToDevice(ctx, aliases, m[1] as string);
            d.partition = m[2];
          } else d.device = aliasToDevice(ctx, aliases, d.device);
        }
        try {
          await mkfs(ctx, d);
        } catch (err) {
          report(`fs_setup[${i}]: Failed during filesystem operation`, err);
        }
      }
    }
  },
};
