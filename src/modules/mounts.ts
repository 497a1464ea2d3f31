// cc_mounts: adds mounts (and the ephemeral0/swap defaults) to /etc/fstab tagged comment=cloudconfig, and sets up a
// swap file.
import { posix } from 'node:path';
import type { CloudConfigValue } from '../config/schema/cloud-config-types';
import { CommandError } from '../util/command-error';
import { configModule } from './support/config-module';
import { isMapping, OwnParser } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { humanToBytes } from './support/human-size';
import { type Module, type ModuleContext, ModuleError } from './module';
import { describeError } from '../util/errors';

export const MNT_COMMENT = 'comment=cloudconfig';
const FSTAB = '/etc/fstab';
const DEVICE_NAME_RE = /^([x]{0,1}[shv]d[a-z][0-9]*|sr[0-9]+)$/;
const NETWORK_NAME_RE = /^.+:.*/;
const MB = 2 ** 20;
const GB = 2 ** 30;

type Entry = Array<string | null>;

/** device_aliases once read: an alias name to the device it names. */
type DeviceAliases = CloudConfigValue<'device_aliases'>;

/** A mounts entry that is not a list: warned about in its turn (by its Python type's name) and skipped. */
interface NotAList {
  readonly notAList: string;
}

/** A swap size as handle_swapcfg reads it: bytes, 'auto', or util.human2bytes's refusal (warned about in turn). */
type SwapSize = number | 'auto' | { readonly refused: string };

/** swap as handle_swapcfg reads it. */
interface SwapFile {
  /** filename when a string, else '/swap.img'; '' is no swap. */
  readonly filename: string;
  /** Undefined when size is JS-false (absent, 0, ''): no swap. A string is human2bytes of it, else its Number(). */
  readonly size: SwapSize | undefined;
  /** maxsize: a number, or human2bytes of a string; none for anything else. */
  readonly maxsize: Exclude<SwapSize, 'auto'> | undefined;
}

/** A swap that is not a mapping: warned about in its turn ("input for swap config was not a dict."). */
interface SwapNotADict {
  readonly notADict: true;
}

function isMetaDeviceName(name: string): boolean {
  if (['ami', 'root', 'swap'].includes(name)) return true;
  return ['ephemeral', 'ebs'].some((p) => name.startsWith(p) && !name.includes(':'));
}

/** util.expand_dotted_devname: 'sdb.1' → ['sdb', '1']. */
function expandDotted(name: string): [string, string | undefined] {
  const dot = name.lastIndexOf('.');
  if (dot > 0 && /^\d+$/.test(name.slice(dot + 1))) return [name.slice(0, dot), name.slice(dot + 1)];
  return [name, undefined];
}

/** The datasource's device for a meta name (EC2's block-device-mapping), as device_name_to_device does. */
function metaDevice(ctx: ModuleContext, name: string): string | undefined {
  const bdm = ctx.instance?.metadata?.['block-device-mapping'];
  const v = isMapping(bdm) ? bdm[name] : undefined;
  return typeof v === 'string' && v ? v : undefined;
}

async function nthPartition(ctx: ModuleContext, device: string, n: string): Promise<string | undefined> {
  for (const suffix of [n, `p${n}`, `-part${n}`])
    if (await ctx.platform.exists(`${device}${suffix}`)) return `${device}${suffix}`;
  return undefined;
}

async function realName(ctx: ModuleContext, path: string): Promise<string> {
  // The device's kernel name: resolving symlinks (by-id, by-label) inside the target root.
  const r = await ctx.platform.run(['readlink', '-f', path], { allowFailure: true });
  return (r.code === 0 && r.stdout.trim()) || path;
}

/**
 * sanitize_devname: a device name, alias or meta name → an existing block device (or its first partition), else
 * undefined.
 */
async function sanitizeDevname(ctx: ModuleContext, start: string, aliases: DeviceAliases): Promise<string | undefined> {
  const devname = start === 'ephemeral' ? 'ephemeral0' : start;
  if (NETWORK_NAME_RE.test(start)) return start;
  let [device, part] = expandDotted(devname);
  device = aliases[device] ?? device;
  if (isMetaDeviceName(device)) {
    const mapped = metaDevice(ctx, device);
    if (!mapped) return undefined;
    device = mapped.startsWith('/') ? mapped : `/dev/${mapped}`;
  } else if (DEVICE_NAME_RE.test(start)) device = `/dev/${device}`;
  const partition = await nthPartition(ctx, device, part ?? '1');
  if (part !== undefined && partition === undefined) return undefined;
  if (!(await ctx.platform.exists(device))) return undefined;
  const sys = posix.join(
    '/sys/block',
    posix.basename(await realName(ctx, device)),
    ...(partition ? [posix.basename(await realName(ctx, partition))] : []),
  );
  if (!(await ctx.platform.exists(sys))) return undefined;
  return partition ?? device;
}

async function memTotal(ctx: ModuleContext): Promise<number | undefined> {
  const m = /^MemTotal:\s+(\d+)\s*kB/m.exec((await ctx.platform.readTextIfExists('/proc/meminfo')) ?? '');
  return m ? Number(m[1]) * 1024 : undefined;
}

/** suggested_swapsize with the free space of the swap file's folder when known. */
function suggestedSwapsize(memsize: number, maxsize: number | undefined, avail: number | undefined): number {
  const suggMax = memsize * 2;
  let max = maxsize;
  if (avail !== undefined) {
    if (max === undefined) max = Math.min(Math.trunc(avail / 4), suggMax);
    else if (max > avail * 0.9) max = Math.trunc(avail * 0.9);
  } else if (max === undefined) max = suggMax;
  const min = memsize < 4 * GB ? memsize : memsize < 16 * GB ? 4 * GB : Math.round(Math.sqrt(memsize / GB)) * GB;
  return Math.min(min, max);
}

async function freeBytes(ctx: ModuleContext, dir: string): Promise<number | undefined> {
  const r = await ctx.platform.run(['df', '-B1', '--output=avail', dir], { allowFailure: true });
  const n = Number(r.stdout.trim().split('\n').pop());
  return r.code === 0 && Number.isFinite(n) ? n : undefined;
}

async function createSwapfile(ctx: ModuleContext, fname: string, mib: number): Promise<void> {
  const dir = posix.dirname(fname);
  await ctx.platform.mkdir(dir);
  const fstype = (
    await ctx.platform.run(['findmnt', '-n', '-o', 'FSTYPE', '-T', dir], { allowFailure: true })
  ).stdout.trim();
  // A btrfs swap file must be NOCOW: create_swapfile empties it and sets +C first (a failure fails the swap setup).
  if (fstype === 'btrfs') {
    await ctx.platform.run(['truncate', '-s', '0', fname]);
    await ctx.platform.run(['chattr', '+C', fname]);
  }
  const dd = ['dd', 'if=/dev/zero', `of=${fname}`, 'bs=1M', `count=${mib}`];
  let r = await ctx.platform.run(['fallocate', '-l', `${mib}M`, fname], { allowFailure: true });
  if (r.code !== 0) {
    ctx.log.info('fallocate swap creation failed, will attempt with dd');
    await ctx.platform.remove(fname);
    r = await ctx.platform.run(dd, { allowFailure: true });
  }
  if (r.code !== 0) {
    await ctx.platform.remove(fname);
    throw new Error(`Failed to create swapfile '${fname}' of size ${mib}MB: ${r.stderr.trim()}`);
  }
  await ctx.platform.run(['chmod', '600', fname]);
  const mk = await ctx.platform.run(['mkswap', fname], { allowFailure: true });
  if (mk.code !== 0) {
    await ctx.platform.remove(fname);
    throw new Error(`mkswap ${fname} failed: ${mk.stderr.trim()}`);
  }
}

/** SIZE in bytes, or its refusal by human2bytes thrown (handle_swapcfg warns about it). */
function bytesOf(size: Exclude<SwapSize, 'auto'>): number {
  if (typeof size === 'number') return size;
  throw new Error(size.refused);
}

/** handle_swapcfg: the swap file to list in fstab (created when missing), or undefined. */
async function handleSwapcfg(
  ctx: ModuleContext,
  swap: SwapFile | SwapNotADict | undefined,
): Promise<string | undefined> {
  if (swap !== undefined && 'notADict' in swap) {
    ctx.log.warn('input for swap config was not a dict.');
    return undefined;
  }
  if (swap?.size === undefined || !swap.filename) {
    ctx.log.debug('no need to setup swap');
    return undefined;
  }
  const { filename: fname, size } = swap;
  if (await ctx.platform.exists(fname)) {
    const swaps = await ctx.platform.readTextIfExists('/proc/swaps');
    if (swaps === undefined) {
      ctx.log.debug(`swap file ${fname} exists, but no /proc/swaps exists, being safe`);
      return fname;
    }
    if (swaps.split('\n').some((l) => l.startsWith(`${fname} `))) {
      ctx.log.debug(`swap file ${fname} already in use`);
      return fname;
    }
    ctx.log.debug(`swap file ${fname} exists, but not in /proc/swaps`);
  }
  try {
    let bytes: number;
    const maxsize = swap.maxsize === undefined ? undefined : bytesOf(swap.maxsize);
    if (size === 'auto') {
      const mem = await memTotal(ctx);
      if (mem === undefined) {
        ctx.log.debug('Not creating swap: failed to read meminfo');
        return undefined;
      }
      await ctx.platform.mkdir(posix.dirname(fname));
      bytes = suggestedSwapsize(mem, maxsize, await freeBytes(ctx, posix.dirname(fname)));
    } else bytes = bytesOf(size);
    if (!bytes) {
      ctx.log.debug('Not creating swap: suggested size was 0');
      return undefined;
    }
    await createSwapfile(ctx, fname, Math.trunc(bytes / MB));
    return fname;
  } catch (err) {
    ctx.log.warn(`failed to setup swap: ${describeError(err)}`);
    return undefined;
  }
}

/**
 * mounts as the module reads it: null is none; each entry a list whose items are str()'d (null stays: a null mount
 * point cancels the device), or, when not a list, noted for its warning; anything but a list fails the module.
 */
function readMounts(value: unknown): ReadonlyArray<readonly (string | null)[] | NotAList> {
  if (value === null) return [];
  if (!Array.isArray(value))
    throw new ModuleError('mounts', "'mounts' must be a list of [device, mountpoint, …] lists");
  return value.map((m: unknown) =>
    Array.isArray(m)
      ? m.map((v: unknown) => (v === null || v === undefined ? null : String(v)))
      : { notAList: m === null ? 'NoneType' : typeof m },
  );
}

/** human2bytes of SIZE, or its refusal. */
function humanSize(size: string): Exclude<SwapSize, 'auto'> {
  try {
    return humanToBytes(size);
  } catch (err) {
    return { refused: describeError(err) };
  }
}

/** swap as handle_swapcfg reads it (SwapFile); null is none, as an absent swap. */
function readSwap(value: unknown): SwapFile | SwapNotADict | undefined {
  if (value === null) return undefined;
  if (!isRecord(value)) return { notADict: true };
  const { size = 0, maxsize } = value;
  return {
    filename: typeof value.filename === 'string' ? value.filename : '/swap.img',
    size: !size
      ? undefined
      : String(size).toLowerCase() === 'auto'
        ? 'auto'
        : typeof size === 'string'
          ? humanSize(size)
          : Number(size),
    maxsize: typeof maxsize === 'string' ? humanSize(maxsize) : typeof maxsize === 'number' ? maxsize : undefined,
  };
}

export const mounts: Module = configModule({
  name: 'mounts',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  configKeys: {
    // 25.1 takes null items (a null mount point cancels its device) and numbers (str()'d): its schema rejects both.
    mounts: new OwnParser(readMounts),
    mount_default_fields: 'as-is',
    // 25.1's human2bytes takes sizes its schema's pattern rejects ('2GB', '1048576'), and float sizes.
    swap: new OwnParser(readSwap),
    // null is none, as before (25.1: `if aliases:`); any other value as given, for the schema to judge.
    device_aliases: (aliases: unknown) => (aliases === null ? undefined : aliases),
  },
  async run(ctx, cfg): Promise<void> {
    const usesSystemd = await ctx.platform.exists('/run/systemd/system');
    // 25.1: ordered after the network stage's unit (24.3 renamed cloud-init.service), not requiring it.
    const defOpts = usesSystemd
      ? 'defaults,nofail,x-systemd.after=cloud-init-network.service,_netdev'
      : 'defaults,nobootwait';
    const defvals: Entry = cfg.mount_default_fields
      ? [...cfg.mount_default_fields]
      : [null, null, 'auto', defOpts, '0', '2'];
    const defmnts: Entry[] = [
      // 25.1's add_default_mounts_to_cfg: the built-in options, whatever mount_default_fields says.
      ['ephemeral0', '/mnt', 'auto', defOpts, '0', '2'],
      ['swap', 'none', 'swap', 'sw', '0', '0'],
    ];
    const aliases = cfg.device_aliases ?? {};

    const fstabLines: string[] = [];
    const fstabDevs = new Map<string, string>();
    const fstabRemoved: string[] = [];
    const fstab = await ctx.platform.readTextIfExists(FSTAB);
    if (fstab !== undefined) {
      for (const line of fstab.split(/\r?\n/).filter((l, i, all) => !(i === all.length - 1 && l === ''))) {
        if (line.includes(MNT_COMMENT)) {
          fstabRemoved.push(line);
          continue;
        }
        fstabDevs.set(line.split(/\s+/)[0] ?? '', line);
        fstabLines.push(line);
      }
    }

    const cfgmnt: Entry[] = [];
    for (const [i, m] of (cfg.mounts ?? []).entries()) {
      if ('notAList' in m) {
        ctx.log.warn(`Mount option ${i + 1} not a list, got a ${m.notAList} instead`);
        continue;
      }
      const entry: Entry = [...m];
      cfgmnt.push(entry);
      const start = String(entry[0]);
      const sanitized = await sanitizeDevname(ctx, start, aliases);
      // As in cloud-init, an entry whose device is unknown or already in fstab is still kept as written.
      if (sanitized === undefined) {
        ctx.log.debug(`Ignoring nonexistent named mount ${start}`);
        continue;
      }
      if (fstabDevs.has(sanitized)) {
        ctx.log.info(`Device ${sanitized} already defined in fstab: ${fstabDevs.get(sanitized)}`);
        continue;
      }
      entry[0] = sanitized;
    }
    for (const [i, entry] of cfgmnt.entries()) {
      for (let j = 0; j < defvals.length; j++) {
        if (entry.length <= j) entry.push(defvals[j] ?? null);
        else if (entry[j] === null) entry[j] = defvals[j] ?? null;
      }
      // An entry with no mount point cancels earlier entries for the same device.
      if (entry[1] === null)
        for (let j = 0; j < i; j++) if ((cfgmnt[j] as Entry)[0] === entry[0]) (cfgmnt[j] as Entry)[1] = null;
    }
    for (const defmnt of defmnts) {
      const start = defmnt[0] as string;
      const sanitized = await sanitizeDevname(ctx, start, aliases);
      if (sanitized === undefined) {
        ctx.log.debug(`Ignoring nonexistent default named mount ${start}`);
        continue;
      }
      if (fstabDevs.has(sanitized)) {
        ctx.log.debug(`Device ${sanitized} already defined in fstab: ${fstabDevs.get(sanitized)}`);
        continue;
      }
      defmnt[0] = sanitized;
      if (cfgmnt.some((c) => c[0] === defmnt[0])) {
        ctx.log.debug(`Not including ${start}, already previously included`);
        continue;
      }
      cfgmnt.push(defmnt);
    }
    const actlist: Entry[] = [];
    for (const x of cfgmnt) {
      if (x[1] === null) ctx.log.debug(`Skipping nonexistent device named ${x[0]}`);
      else actlist.push(x);
    }
    for (const line of actlist) line[3] = `${line[3] ?? 'None'},${MNT_COMMENT}`;
    // 25.1 tags the entries (add_comment) before it appends the swap file's: that line is written untagged.
    const swap = await handleSwapcfg(ctx, cfg.swap);
    if (swap) actlist.push([swap, 'none', 'swap', 'sw', '0', '0']);
    if (actlist.length === 0) {
      ctx.log.debug('No modifications to fstab needed');
      return;
    }
    const ccLines: string[] = [];
    let needSwap = false;
    const dirs: string[] = [];
    for (const line of actlist) {
      if (line[2] === 'swap') needSwap = true;
      if ((line[1] ?? '').startsWith('/')) dirs.push(line[1] as string);
      ccLines.push(line.map((v) => v ?? 'None').join('\t'));
    }
    for (const d of dirs) {
      try {
        await ctx.platform.mkdir(d);
      } catch (err) {
        ctx.log.warn(`Failed to make '${d}' config-mount: ${describeError(err)}`);
      }
    }
    const norm = (s: string) => s.replace(/\s+/g, ' ');
    const adds = ccLines.map(norm);
    const drops = fstabRemoved.map(norm);
    const changes = [
      ...drops.filter((d) => !adds.includes(d)).map((d) => `- ${d}`),
      ...adds.filter((a) => !drops.includes(a)).map((a) => `+ ${a}`),
    ];
    await ctx.platform.writeFile(FSTAB, `${[...fstabLines, ...ccLines].join('\n')}\n`);
    if (changes.length === 0) ctx.log.debug('No changes to /etc/fstab made.');
    else ctx.log.debug(`Changes to fstab: ${JSON.stringify(changes)}`);
    if (ctx.platform.root !== '/') {
      // An image or sandbox has no running system whose mounts and swap could be activated now.
      ctx.log.debug('mounts: the target is not the running system; swapon/mount -a are left to its boot');
      return;
    }
    const cmds: string[][] = [];
    if (needSwap) cmds.push(['swapon', '-a']);
    const mounted = ((await ctx.platform.readTextIfExists('/proc/mounts')) ?? '')
      .split('\n')
      .map((l) => l.split(' ')[1]);
    if (changes.length > 0 || dirs.some((d) => !mounted.includes(d))) {
      cmds.push(['mount', '-a']);
      if (usesSystemd) cmds.push(['systemctl', 'daemon-reload']);
    }
    // 25.1 (activate_swap_if_needed, mount_if_needed): a failing swapon -a or mount -a fails the module; 22.4 only
    // logged PASS/FAIL.
    for (const cmd of cmds) {
      const r = await ctx.platform.run(cmd, { allowFailure: true });
      if (r.code !== 0)
        throw new CommandError(
          `command '${cmd.join(' ')}' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`,
          { argv: cmd, code: r.code, stdout: r.stdout, stderr: r.stderr },
        );
    }
  },
});
