// Writes a FAT12/16/32 image with VFAT long names and a volume label from a list of files (make-seed --format vfat).
import { buildSeedTree, SeedError, type SeedDir, type SeedFile } from './seed-files';

const SECTOR = 512;
export type FatBits = 12 | 16 | 32;

export interface FatWriteOptions {
  label: string;
  /** Image size in bytes; default: the files plus room, rounded up to a whole MiB (at least 1 MiB). */
  size?: number;
  /** Force FAT12, FAT16 or FAT32; default chosen by size (≤ 16 MiB FAT12, ≤ 512 MiB FAT16, else FAT32). */
  fatBits?: FatBits;
  time?: Date;
  /** Volume serial; default derived from the time. */
  serial?: number;
}

interface Layout {
  bits: FatBits;
  spc: number;
  reserved: number;
  fatSectors: number;
  rootEntries: number;
  totalSectors: number;
  clusters: number;
}

const RANGE: Record<FatBits, [number, number]> = { 12: [1, 4084], 16: [4085, 65524], 32: [65525, 0x0ffffff5] };

function layoutFor(totalSectors: number, bits: FatBits): Layout | undefined {
  const reserved = bits === 32 ? 32 : 1;
  const rootEntries = bits === 32 ? 0 : 512;
  const rootSectors = (rootEntries * 32) / SECTOR;
  for (let spc = 1; spc <= 128; spc *= 2) {
    let fatSectors = 1;
    for (let i = 0; i < 20; i++) {
      const clusters = Math.floor((totalSectors - reserved - rootSectors - 2 * fatSectors) / spc);
      const need = Math.ceil(Math.ceil(((clusters + 2) * bits) / 8) / SECTOR);
      if (need === fatSectors) break;
      fatSectors = need;
    }
    const clusters = Math.floor((totalSectors - reserved - rootSectors - 2 * fatSectors) / spc);
    const [min, max] = RANGE[bits];
    if (clusters > max) continue;
    if (clusters < min) return undefined;
    return { bits, spc, reserved, fatSectors, rootEntries, totalSectors, clusters };
  }
  return undefined;
}

function dosTime(d: Date): { date: number; time: number } {
  return {
    date: ((Math.max(1980, d.getUTCFullYear()) - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
  };
}

const SHORT_OK = /^[A-Z0-9!#$%&'()@^_`{}~-]+$/;

function shortChecksum(short: Buffer): number {
  let sum = 0;
  for (let i = 0; i < 11; i++) sum = ((((sum & 1) << 7) | (sum >> 1)) + (short[i] as number)) & 0xff;
  return sum;
}

/** The 11-byte short name for NAME (unique among USED), and whether a long name is needed. */
function shortName(name: string, used: Set<string>): { short: Buffer; needsLfn: boolean } {
  const dot = name.lastIndexOf('.');
  const base = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot + 1) : '';
  const fits = base.length <= 8 && ext.length <= 3 && SHORT_OK.test(base) && (ext === '' || SHORT_OK.test(ext));
  if (fits) {
    const s = base.padEnd(8, ' ') + ext.padEnd(3, ' ');
    if (!used.has(s)) {
      used.add(s);
      return { short: Buffer.from(s, 'latin1'), needsLfn: false };
    }
  }
  const clean = (x: string) =>
    x
      .toUpperCase()
      .replace(/[. ]/g, '')
      .replace(/[^A-Z0-9!#$%&'()@^_`{}~-]/g, '_');
  const b = clean(base) || '_';
  const e = clean(ext).slice(0, 3);
  for (let n = 1; n < 1_000_000; n++) {
    const tail = `~${n}`;
    const s = (b.slice(0, 8 - tail.length) + tail).padEnd(8, ' ') + e.padEnd(3, ' ');
    if (!used.has(s)) {
      used.add(s);
      return { short: Buffer.from(s, 'latin1'), needsLfn: true };
    }
  }
  throw new SeedError(`cannot find a free short name for '${name}'`);
}

function lfnEntries(name: string, checksum: number): Buffer[] {
  const units = Buffer.from(name, 'utf16le');
  const chars = units.length / 2;
  if (chars > 255) throw new SeedError(`name '${name}' is longer than 255 characters, the VFAT limit`);
  const count = Math.ceil(chars / 13);
  const padded = Buffer.alloc(count * 26, 0xff);
  units.copy(padded);
  if (chars % 13 !== 0) padded.writeUInt16LE(0, chars * 2);
  const out: Buffer[] = [];
  for (let i = count; i >= 1; i--) {
    const e = Buffer.alloc(32);
    e[0] = i | (i === count ? 0x40 : 0);
    const part = padded.subarray((i - 1) * 26, i * 26);
    part.copy(e, 1, 0, 10);
    e[11] = 0x0f;
    e[13] = checksum;
    part.copy(e, 14, 10, 22);
    part.copy(e, 28, 22, 26);
    out.push(e);
  }
  return out;
}

/**
 * Refuses names a FAT folder cannot hold as given: characters VFAT long names exclude (Windows, mtools and
 * Linux's vfat refuse or rewrite them), a trailing dot or space (Windows drops it), and two names that
 * differ only in case (FAT finds names without regard to case, so one would hide the other).
 */
function checkFatNames(dir: SeedDir, path: string): void {
  const seen = new Map<string, string>();
  for (const name of [...dir.dirs.map((d) => d.name), ...dir.files.map((f) => f.name)]) {
    const where = path ? `${path}/${name}` : name;
    const bad = /[\u0000-\u001f"*:<>?\\|]/.exec(name);
    if (bad)
      throw new SeedError(
        `seed path '${where}': FAT names cannot hold ${JSON.stringify(bad[0])} (nor any of " * : < > ? \\ | or control characters); rename it or use --format iso`,
      );
    if (/[. ]$/.test(name))
      throw new SeedError(
        `seed path '${where}': a FAT name cannot end with a dot or a space; rename it or use --format iso`,
      );
    const key = name.toUpperCase();
    const other = seen.get(key);
    if (other !== undefined)
      throw new SeedError(
        `seed paths '${path ? `${path}/` : ''}${other}' and '${where}' differ only in case, which FAT does not tell apart; rename one or use --format iso`,
      );
    seen.set(key, name);
  }
  for (const d of dir.dirs) checkFatNames(d, path ? `${path}/${d.name}` : d.name);
}

interface PlannedDir {
  seed: SeedDir;
  cluster: number;
  clusters: number;
  parent: PlannedDir | undefined;
  entries: number;
  children: PlannedDir[];
  files: Array<{ name: string; data: Uint8Array; cluster: number; clusters: number }>;
}

function lfnCount(name: string): number {
  return Math.ceil(Buffer.from(name, 'utf16le').length / 26);
}

/** The bytes of a FAT image holding FILES, labelled LABEL (in the boot sector and the root directory). */
export function writeFat(files: SeedFile[], opts: FatWriteOptions): Buffer {
  if (opts.label.length > 11 || !/^[\x20-\x7e]*$/.test(opts.label) || /["*+,./:;<=>?[\\\]|]/.test(opts.label)) {
    throw new SeedError(
      `volume label '${opts.label}' is not a valid FAT label (at most 11 plain characters, none of "*+,./:;<=>?[\\]|)`,
    );
  }
  const time = opts.time ?? new Date();
  const seedRoot = buildSeedTree(files);
  checkFatNames(seedRoot, '');
  const dataBytes = files.reduce((s, f) => s + f.data.length, 0);
  const size =
    opts.size ??
    Math.max(
      1024 * 1024,
      Math.ceil((dataBytes * 1.1 + files.length * 8192 + 256 * 1024) / (1024 * 1024)) * 1024 * 1024,
    );
  const totalSectors = Math.floor(size / SECTOR);
  const bits: FatBits = opts.fatBits ?? (size <= 16 * 1024 * 1024 ? 12 : size <= 512 * 1024 * 1024 ? 16 : 32);
  const L = layoutFor(totalSectors, bits);
  if (!L)
    throw new SeedError(
      `a ${size}-byte image cannot hold a FAT${bits} filesystem (FAT32 needs at least about 33 MiB; try another --size or --fat)`,
    );
  const clusterSize = L.spc * SECTOR;

  // Plan: entries per folder, then clusters in depth-first order (FAT32 root first, at cluster 2).
  let next = 2;
  const plan = (seed: SeedDir, parent: PlannedDir | undefined): PlannedDir => {
    const isRoot = parent === undefined;
    let entries = isRoot ? 1 : 2;
    for (const n of [...seed.dirs.map((d) => d.name), ...seed.files.map((f) => f.name)]) entries += 1 + lfnCount(n);
    const d: PlannedDir = { seed, cluster: 0, clusters: 0, parent, entries, children: [], files: [] };
    if (!isRoot || L.bits === 32) {
      d.clusters = Math.max(1, Math.ceil((entries * 32) / clusterSize));
      d.cluster = next;
      next += d.clusters;
    } else if (entries > L.rootEntries) {
      throw new SeedError(`the root folder needs ${entries} directory entries; FAT${L.bits} holds ${L.rootEntries}`);
    }
    if (entries > 65536) throw new SeedError(`folder '${seed.name}' has too many entries for FAT`);
    d.children = seed.dirs.map((c) => plan(c, d));
    return d;
  };
  const root = plan(seedRoot, undefined);
  const assignFiles = (d: PlannedDir) => {
    d.files = d.seed.files.map((f) => {
      const clusters = Math.ceil(f.data.length / clusterSize);
      const r = { name: f.name, data: f.data, cluster: clusters ? next : 0, clusters };
      next += clusters;
      return r;
    });
    d.children.forEach(assignFiles);
  };
  assignFiles(root);
  if (next - 2 > L.clusters)
    throw new SeedError(
      `the files need ${next - 2} clusters of ${clusterSize} bytes; a ${size}-byte FAT${L.bits} image has ${L.clusters}; give a larger --size`,
    );

  const img = Buffer.alloc(totalSectors * SECTOR);
  const fatOffset = L.reserved * SECTOR;
  const rootDirOffset = (L.reserved + 2 * L.fatSectors) * SECTOR;
  const dataOffset = rootDirOffset + L.rootEntries * 32;
  const eoc = L.bits === 12 ? 0xfff : L.bits === 16 ? 0xffff : 0x0fffffff;
  const fat = Buffer.alloc(L.fatSectors * SECTOR);
  const setFat = (c: number, v: number) => {
    if (L.bits === 12) {
      const p = c + (c >> 1);
      const cur = fat.readUInt16LE(p);
      fat.writeUInt16LE(c & 1 ? (cur & 0x000f) | (v << 4) : (cur & 0xf000) | (v & 0xfff), p);
    } else if (L.bits === 16) fat.writeUInt16LE(v, c * 2);
    else fat.writeUInt32LE(v, c * 4);
  };
  setFat(0, L.bits === 12 ? 0xff8 : L.bits === 16 ? 0xfff8 : 0x0ffffff8);
  setFat(1, eoc);
  const chain = (first: number, count: number) => {
    for (let i = 0; i < count; i++) setFat(first + i, i === count - 1 ? eoc : first + i + 1);
  };
  const { date, time: tm } = dosTime(time);
  const entry = (short: Buffer, attr: number, cluster: number, size: number): Buffer => {
    const e = Buffer.alloc(32);
    short.copy(e, 0);
    e[11] = attr;
    e.writeUInt16LE(tm, 14);
    e.writeUInt16LE(date, 16);
    e.writeUInt16LE(date, 18);
    e.writeUInt16LE(L.bits === 32 ? cluster >>> 16 : 0, 20);
    e.writeUInt16LE(tm, 22);
    e.writeUInt16LE(date, 24);
    e.writeUInt16LE(cluster & 0xffff, 26);
    e.writeUInt32LE(size, 28);
    return e;
  };
  const writeDir = (d: PlannedDir) => {
    const parts: Buffer[] = [];
    const used = new Set<string>();
    if (!d.parent) parts.push(entry(Buffer.from(opts.label.padEnd(11, ' '), 'latin1'), 0x08, 0, 0));
    else {
      used.add('.          ');
      used.add('..         ');
      parts.push(entry(Buffer.from('.          ', 'latin1'), 0x10, d.cluster, 0));
      // '..' of a folder in the root points at cluster 0, on FAT32 too.
      parts.push(entry(Buffer.from('..         ', 'latin1'), 0x10, d.parent.parent ? d.parent.cluster : 0, 0));
    }
    const add = (name: string, attr: number, cluster: number, size: number) => {
      const { short, needsLfn } = shortName(name, used);
      if (needsLfn) parts.push(...lfnEntries(name, shortChecksum(short)));
      parts.push(entry(short, attr, cluster, size));
    };
    for (const c of d.children) add(c.seed.name, 0x10, c.cluster, 0);
    for (const f of d.files) add(f.name, 0x20, f.cluster, f.data.length);
    const bytes = Buffer.concat(parts);
    if (!d.parent && L.bits !== 32) bytes.copy(img, rootDirOffset);
    else {
      bytes.copy(img, dataOffset + (d.cluster - 2) * clusterSize);
      chain(d.cluster, d.clusters);
    }
    for (const f of d.files) {
      if (f.clusters === 0) continue;
      Buffer.from(f.data.buffer, f.data.byteOffset, f.data.length).copy(
        img,
        dataOffset + (f.cluster - 2) * clusterSize,
      );
      chain(f.cluster, f.clusters);
    }
    d.children.forEach(writeDir);
  };
  writeDir(root);
  fat.copy(img, fatOffset);
  fat.copy(img, fatOffset + L.fatSectors * SECTOR);

  const serial = opts.serial ?? (Math.floor(time.getTime() / 1000) ^ 0x4b494c4e) >>> 0;
  const boot = Buffer.alloc(SECTOR);
  boot.set(L.bits === 32 ? [0xeb, 0x58, 0x90] : [0xeb, 0x3c, 0x90], 0);
  boot.write('mkfs.fat', 3, 'latin1');
  boot.writeUInt16LE(SECTOR, 11);
  boot[13] = L.spc;
  boot.writeUInt16LE(L.reserved, 14);
  boot[16] = 2;
  boot.writeUInt16LE(L.rootEntries, 17);
  boot.writeUInt16LE(L.totalSectors < 65536 && L.bits !== 32 ? L.totalSectors : 0, 19);
  boot[21] = 0xf8;
  boot.writeUInt16LE(L.bits === 32 ? 0 : L.fatSectors, 22);
  boot.writeUInt16LE(32, 24);
  boot.writeUInt16LE(64, 26);
  boot.writeUInt32LE(0, 28);
  boot.writeUInt32LE(L.totalSectors < 65536 && L.bits !== 32 ? 0 : L.totalSectors, 32);
  const ext = L.bits === 32 ? 64 : 36;
  if (L.bits === 32) {
    boot.writeUInt32LE(L.fatSectors, 36);
    boot.writeUInt32LE(root.cluster, 44);
    boot.writeUInt16LE(1, 48);
    boot.writeUInt16LE(6, 50);
  }
  boot[ext] = 0x80;
  boot[ext + 2] = 0x29;
  boot.writeUInt32LE(serial, ext + 3);
  boot.write(opts.label.padEnd(11, ' '), ext + 7, 'latin1');
  boot.write(`FAT${L.bits}   `, ext + 18, 'latin1');
  boot[510] = 0x55;
  boot[511] = 0xaa;
  boot.copy(img, 0);
  if (L.bits === 32) {
    const info = Buffer.alloc(SECTOR);
    info.writeUInt32LE(0x41615252, 0);
    info.writeUInt32LE(0x61417272, 484);
    info.writeUInt32LE(L.clusters - (next - 2), 488);
    info.writeUInt32LE(next, 492);
    info.writeUInt32LE(0xaa550000, 508);
    info.copy(img, SECTOR);
    boot.copy(img, 6 * SECTOR);
    info.copy(img, 7 * SECTOR);
  }
  return img;
}
