// Writes an ISO9660 image with Joliet and Rock Ridge names from a list of files (kiln make-seed --format iso).
import { buildSeedTree, SeedError, type SeedDir, type SeedFile } from './seed-files';

const S = 2048;
/** Linux isofs truncates a Rock Ridge name of 254 bytes or more (fs/isofs/rock.c), so 253 is the longest kept whole. */
const MAX_NM = 253;
/** Joliet's limit for a name, in UCS-2 units (longer names are cut, see jolietNames). */
const JOLIET_MAX = 64;
/** Bytes of a CE entry, kept free in a record whose System Use entries spill into a continuation area. */
const CE_LEN = 28;

interface Dir {
  seed: SeedDir;
  /** Blocks of continuation areas after the Rock Ridge extent. */
  ceBlocks: number;
  parent: Dir | undefined;
  isoName: string;
  jolietName: Buffer;
  number: number;
  children: Dir[];
  files: Array<{ name: string; isoName: string; jolietName: Buffer; data: Uint8Array; lba: number }>;
  lba: [number, number];
  size: [number, number];
}

function bothU32(b: Buffer, o: number, v: number): void {
  b.writeUInt32LE(v, o);
  b.writeUInt32BE(v, o + 4);
}
function bothU16(b: Buffer, o: number, v: number): void {
  b.writeUInt16LE(v, o);
  b.writeUInt16BE(v, o + 2);
}
function ucs2be(s: string): Buffer {
  const le = Buffer.from(s, 'utf16le');
  for (let i = 0; i + 1 < le.length; i += 2) {
    const t = le[i] as number;
    le[i] = le[i + 1] as number;
    le[i + 1] = t;
  }
  return le;
}
function dirDate(d: Date): Buffer {
  return Buffer.from([
    d.getUTCFullYear() - 1900,
    d.getUTCMonth() + 1,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    0,
  ]);
}
function volDate(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}00`;
}

/** Unique ISO9660 level-1 names (8.3, d-characters) for NAMES, in order. */
function isoNames(names: string[], isDir: boolean): string[] {
  const used = new Set<string>();
  return names.map((n) => {
    const dot = isDir ? -1 : n.lastIndexOf('.');
    const clean = (s: string) => s.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
    let base = clean(dot > 0 ? n.slice(0, dot) : n).slice(0, 8) || '_';
    const ext = dot > 0 ? clean(n.slice(dot + 1)).slice(0, 3) : '';
    const make = (b: string) => (isDir ? b : `${b}.${ext};1`);
    let candidate = make(base);
    for (let i = 1; used.has(candidate); i++) {
      const suffix = String(i);
      base = base.slice(0, 8 - suffix.length) + suffix;
      candidate = make(base);
    }
    used.add(candidate);
    return candidate;
  });
}

/**
 * Unique Joliet names for NAMES (UCS-2 big-endian): characters Joliet forbids (controls, * / : ; ? \\)
 * become '_', names longer than 64 units are cut before their extension, and a name that collides gets
 * '~N' before its extension.
 */
function jolietNames(names: string[]): Buffer[] {
  const used = new Set<string>();
  const cut = (s: string, max: number) => {
    let out = s.slice(0, max);
    // Never split a surrogate pair.
    if (out.length > 0 && /[\ud800-\udbff]$/.test(out)) out = out.slice(0, -1);
    return out;
  };
  return names.map((n) => {
    const clean = n.replace(/[\u0000-\u001f*/:;?\\]/g, '_');
    const dot = clean.lastIndexOf('.');
    const ext = dot > 0 && clean.length - dot <= 16 ? clean.slice(dot) : '';
    const stem = ext ? clean.slice(0, dot) : clean;
    // A cut keeps the extension, which Windows goes by.
    let candidate = clean.length <= JOLIET_MAX ? clean : cut(stem, JOLIET_MAX - ext.length) + ext;
    for (let i = 1; used.has(candidate); i++) {
      const tail = `~${i}${ext}`;
      candidate = cut(stem, JOLIET_MAX - tail.length) + tail;
    }
    used.add(candidate);
    return ucs2be(candidate);
  });
}

function suEntry(sig: string, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from(sig, 'latin1'), Buffer.from([payload.length + 4, 1]), payload]);
}
function px(mode: number): Buffer {
  const b = Buffer.alloc(32);
  bothU32(b, 0, mode);
  bothU32(b, 8, mode & 0o040000 ? 2 : 1);
  return suEntry('PX', b);
}
/** TF with the modification time only (flag 0x02, 7-byte dates). */
function tf(date: Buffer): Buffer {
  return suEntry('TF', Buffer.concat([Buffer.from([0x02]), date]));
}
/** RR (RRIP 1.09): which Rock Ridge entries follow; PX and TF always, NM when the record names a file. */
function rr(withName: boolean): Buffer {
  return suEntry('RR', Buffer.from([0x01 | 0x80 | (withName ? 0x08 : 0)]));
}
/** NM entries for NAME: 250 bytes at most each, all but the last flagged CONTINUE. */
function nm(name: string): Buffer[] {
  const bytes = Buffer.from(name, 'utf8');
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 250) {
    const part = bytes.subarray(at, at + 250);
    out.push(suEntry('NM', Buffer.concat([Buffer.from([at + part.length < bytes.length ? 1 : 0]), part])));
  }
  return out;
}
function ce(lba: number, offset: number, size: number): Buffer {
  const b = Buffer.alloc(24);
  bothU32(b, 0, lba);
  bothU32(b, 8, offset);
  bothU32(b, 16, size);
  return suEntry('CE', b);
}

/**
 * The continuation areas of one directory, in the blocks right after its extent: libarchive (bsdtar, and
 * so cloudbase-init) streams the image and reads a CE area only when its position is exactly there after
 * reading a directory, and refuses one behind that position; every reader wants an area to end in the
 * block where it starts.
 */
class ContinuationAreas {
  readonly blocks: Buffer[] = [];
  private used = S;
  constructor(private readonly firstLba: number) {}
  /** Stores BYTES (at most one block) and returns the CE entry that points to them. */
  place(bytes: Buffer): Buffer {
    if (this.used + bytes.length > S) {
      this.blocks.push(Buffer.alloc(S));
      this.used = 0;
    }
    const offset = this.used;
    bytes.copy(this.blocks[this.blocks.length - 1] as Buffer, offset);
    this.used += bytes.length;
    return ce(this.firstLba + this.blocks.length - 1, offset, bytes.length);
  }
}

/**
 * The System Use field of a record whose fixed part (33 bytes, name, pad) is BASE bytes long: ENTRIES
 * inline when the record stays within 254 bytes (a record is at most 255 and of even length), else as many
 * as fit beside a CE entry, and the rest in a continuation area.
 */
function systemUse(base: number, entries: Buffer[], areas: ContinuationAreas): Buffer {
  const limit = 254 - base;
  const total = entries.reduce((n, e) => n + e.length, 0);
  if (total <= limit) return Buffer.concat(entries);
  const inline: Buffer[] = [];
  let used = 0;
  let i = 0;
  for (; i < entries.length && used + (entries[i] as Buffer).length + CE_LEN <= limit; i++) {
    inline.push(entries[i] as Buffer);
    used += (entries[i] as Buffer).length;
  }
  return Buffer.concat([...inline, areas.place(Buffer.concat(entries.slice(i)))]);
}

function record(opts: {
  name: Buffer;
  lba: number;
  size: number;
  dir: boolean;
  date: Buffer;
  su?: Buffer;
  more?: boolean;
}): Buffer {
  const nameLen = opts.name.length;
  const pad = nameLen % 2 === 0 ? 1 : 0;
  let su = opts.su ?? Buffer.alloc(0);
  if ((33 + nameLen + pad + su.length) % 2 === 1) su = Buffer.concat([su, Buffer.alloc(1)]);
  const len = 33 + nameLen + pad + su.length;
  if (len > 255)
    throw new SeedError(
      `ISO9660 directory record for '${opts.name.toString('latin1')}' would be ${len} bytes (limit 255); use a shorter name`,
    );
  const b = Buffer.alloc(len);
  b[0] = len;
  bothU32(b, 2, opts.lba);
  bothU32(b, 10, opts.size);
  opts.date.copy(b, 18);
  b[25] = (opts.dir ? 2 : 0) | (opts.more ? 0x80 : 0);
  bothU16(b, 28, 1);
  b[32] = nameLen;
  opts.name.copy(b, 33);
  su.copy(b, 33 + nameLen + pad);
  return b;
}

/** Lays records into sectors (a record never crosses a sector boundary); returns the padded bytes. */
function packRecords(records: Buffer[]): Buffer {
  const chunks: Buffer[] = [];
  let used = 0;
  for (const r of records) {
    if (used + r.length > S) {
      chunks.push(Buffer.alloc(S - used));
      used = 0;
    }
    chunks.push(r);
    used += r.length;
  }
  if (used > 0) chunks.push(Buffer.alloc(S - used));
  return Buffer.concat(chunks);
}

/** [lba, bytes, more extents follow] for each extent of a file laid out contiguously from its LBA. */
function extents(f: { lba: number; data: Uint8Array }, maxExtent: number): Array<[number, number, boolean]> {
  if (f.data.length === 0) return [[f.lba, 0, false]];
  const out: Array<[number, number, boolean]> = [];
  for (let at = 0; at < f.data.length; at += maxExtent) {
    const size = Math.min(maxExtent, f.data.length - at);
    out.push([f.lba + at / S, size, at + size < f.data.length]);
  }
  return out;
}

export interface IsoWriteOptions {
  label: string;
  /** Largest extent in bytes (a multiple of 2048); bigger files become multi-extent. Default 4 GiB - 2048. */
  maxExtent?: number;
  /** Creation time written into the descriptors (blkid shows it as the UUID). */
  time?: Date;
}

/** The bytes of an ISO9660 image holding FILES, with Rock Ridge in the primary tree and a Joliet tree. */
export function writeIso9660(files: SeedFile[], opts: IsoWriteOptions): Buffer {
  if (Buffer.byteLength(opts.label, 'latin1') > 32 || opts.label.length > 16)
    throw new SeedError(`volume label '${opts.label}' is too long for ISO9660 (16 characters)`);
  const time = opts.time ?? new Date();
  const date = dirDate(time);
  const maxExtent = opts.maxExtent ?? 0xfffff800;
  if (maxExtent <= 0 || maxExtent % S !== 0)
    throw new SeedError(`maxExtent ${maxExtent} must be a positive multiple of ${S}`);
  const seedRoot = buildSeedTree(files);

  // Folders in breadth-first order, as path tables number them.
  const all: Dir[] = [];
  const mk = (seed: SeedDir, parent: Dir | undefined, isoName: string, jolietName: Buffer): Dir => ({
    seed,
    parent,
    isoName,
    jolietName,
    ceBlocks: 0,
    number: 0,
    children: [],
    files: [],
    lba: [0, 0],
    size: [0, 0],
  });
  const root = mk(seedRoot, undefined, '', Buffer.from([0]));
  const queue = [root];
  while (queue.length > 0) {
    const d = queue.shift() as Dir;
    d.number = all.length + 1;
    all.push(d);
    if (all.length > 65535) throw new SeedError('too many folders for an ISO9660 path table');
    const sortedDirs = [...d.seed.dirs].sort((a, b) => (a.name < b.name ? -1 : 1));
    const sortedFiles = [...d.seed.files].sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const n of [...sortedDirs, ...sortedFiles].map((x) => x.name)) {
      if (Buffer.byteLength(n, 'utf8') > MAX_NM)
        throw new SeedError(
          `name '${n}' is longer than ${MAX_NM} bytes, the longest Rock Ridge name Linux reads whole`,
        );
    }
    const dirNames = isoNames(
      sortedDirs.map((x) => x.name),
      true,
    );
    const fileNames = isoNames(
      sortedFiles.map((x) => x.name),
      false,
    );
    // Folders and files share one Joliet namespace.
    const joliet = jolietNames([...sortedDirs, ...sortedFiles].map((x) => x.name));
    d.children = sortedDirs.map((x, i) => mk(x, d, dirNames[i] as string, joliet[i] as Buffer));
    d.files = sortedFiles.map((f, i) => ({
      name: f.name,
      isoName: fileNames[i] as string,
      jolietName: joliet[sortedDirs.length + i] as Buffer,
      data: f.data,
      lba: 0,
    }));
    queue.push(...d.children);
  }

  const rrRecords = (
    d: Dir,
    lbaOf: (x: Dir) => number,
    sizeOf: (x: Dir) => number,
    areas: ContinuationAreas,
  ): Buffer[] => {
    const out: Buffer[] = [];
    // SP first in the root's '.', then the ER that names RRIP; SUSP allows them nowhere else.
    const dotEntries =
      d === root
        ? [Buffer.from([0x53, 0x50, 7, 1, 0xbe, 0xef, 0]), rr(false), px(0o040755), tf(date), ER]
        : [rr(false), px(0o040755), tf(date)];
    out.push(
      record({
        name: Buffer.from([0]),
        lba: lbaOf(d),
        size: sizeOf(d),
        dir: true,
        date,
        su: systemUse(34, dotEntries, areas),
      }),
    );
    const parent = d.parent ?? d;
    out.push(
      record({
        name: Buffer.from([1]),
        lba: lbaOf(parent),
        size: sizeOf(parent),
        dir: true,
        date,
        su: systemUse(34, [rr(false), px(0o040755), tf(date)], areas),
      }),
    );
    const named = (
      iso: string,
      dir: boolean,
      lba: number,
      size: number,
      more: boolean,
      name: string,
      mode: number,
    ): Buffer => {
      const isoName = Buffer.from(iso, 'latin1');
      const base = 33 + isoName.length + (isoName.length % 2 === 0 ? 1 : 0);
      return record({
        name: isoName,
        lba,
        size,
        more,
        dir,
        date,
        su: systemUse(base, [rr(true), px(mode), tf(date), ...nm(name)], areas),
      });
    };
    const entries: Array<{ iso: string; rec: () => Buffer[] }> = [
      ...d.children.map((c) => ({
        iso: c.isoName,
        rec: () => [named(c.isoName, true, lbaOf(c), sizeOf(c), false, c.seed.name, 0o040755)],
      })),
      ...d.files.map((f) => ({
        iso: f.isoName,
        rec: () =>
          extents(f, maxExtent).map(([lba, size, more]) => named(f.isoName, false, lba, size, more, f.name, 0o100644)),
      })),
    ];
    entries.sort((a, b) => (a.iso < b.iso ? -1 : a.iso > b.iso ? 1 : 0));
    for (const e of entries) out.push(...e.rec());
    return out;
  };

  const jolietRecords = (d: Dir, lbaOf: (x: Dir) => number, sizeOf: (x: Dir) => number): Buffer[] => {
    const out: Buffer[] = [];
    out.push(record({ name: Buffer.from([0]), lba: lbaOf(d), size: sizeOf(d), dir: true, date }));
    const parent = d.parent ?? d;
    out.push(record({ name: Buffer.from([1]), lba: lbaOf(parent), size: sizeOf(parent), dir: true, date }));
    // Like genisoimage, Joliet names carry no ';1' version.
    const entries = [
      ...d.children.map((c) => ({
        key: c.jolietName,
        rec: () => [record({ name: c.jolietName, lba: lbaOf(c), size: sizeOf(c), dir: true, date })],
      })),
      ...d.files.map((f) => ({
        key: f.jolietName,
        rec: () =>
          extents(f, maxExtent).map(([lba, size, more]) =>
            record({ name: f.jolietName, lba, size, more, dir: false, date }),
          ),
      })),
    ];
    entries.sort((a, b) => Buffer.compare(a.key, b.key));
    for (const e of entries) out.push(...e.rec());
    return out;
  };

  // Record sizes do not depend on LBAs (a CE entry is as long wherever it points), so one pass with zeros
  // gives every extent's size and how many blocks its continuation areas take.
  const zero = () => 0;
  for (const d of all) {
    const sizing = new ContinuationAreas(0);
    d.size[0] = packRecords(rrRecords(d, zero, zero, sizing)).length;
    d.ceBlocks = sizing.blocks.length;
    d.size[1] = packRecords(jolietRecords(d, zero, zero)).length;
  }
  const pathTable = (which: 0 | 1, big: boolean): Buffer => {
    const parts: Buffer[] = [];
    for (const d of all) {
      const id = d === root ? Buffer.from([0]) : which === 0 ? Buffer.from(d.isoName, 'latin1') : d.jolietName;
      const b = Buffer.alloc(8 + id.length + (id.length % 2));
      b[0] = id.length;
      if (big) {
        b.writeUInt32BE(d.lba[which], 2);
        b.writeUInt16BE(d.parent?.number ?? 1, 6);
      } else {
        b.writeUInt32LE(d.lba[which], 2);
        b.writeUInt16LE(d.parent?.number ?? 1, 6);
      }
      id.copy(b, 8);
      parts.push(b);
    }
    return Buffer.concat(parts);
  };
  const ptSize = [pathTable(0, false).length, pathTable(1, false).length] as const;
  const ptSectors = ptSize.map((n) => Math.ceil(n / S)) as [number, number];
  let lba = 19;
  const ptLba = { l0: lba, m0: (lba += ptSectors[0]), l1: (lba += ptSectors[0]), m1: (lba += ptSectors[1]) };
  lba += ptSectors[1];
  for (const d of all) {
    d.lba[0] = lba;
    lba += d.size[0] / S + d.ceBlocks;
  }
  for (const d of all) {
    d.lba[1] = lba;
    lba += d.size[1] / S;
  }
  const dataStart = lba;
  for (const d of all) {
    for (const f of d.files) {
      // An empty file points where the data starts: libarchive refuses a CE area at or after a file's data,
      // and block 0 is before every area.
      f.lba = f.data.length === 0 ? dataStart : lba;
      lba += Math.ceil(f.data.length / S);
    }
  }
  const total = Math.max(lba, dataStart + 1);
  const img = Buffer.alloc(total * S);

  const descriptor = (type: 1 | 2): Buffer => {
    const which = type === 1 ? 0 : 1;
    const b = Buffer.alloc(S);
    b[0] = type;
    b.write('CD001', 1, 'latin1');
    b[6] = 1;
    const text = (o: number, len: number, s: string) => {
      if (type === 1) b.write(s.padEnd(len, ' ').slice(0, len), o, 'latin1');
      else {
        const u = ucs2be(s.padEnd(len / 2, ' ').slice(0, len / 2));
        u.copy(b, o);
      }
    };
    text(8, 32, 'LINUX');
    text(40, 32, opts.label);
    bothU32(b, 80, total);
    if (type === 2) b.write('%/E', 88, 'latin1');
    bothU16(b, 120, 1);
    bothU16(b, 124, 1);
    bothU16(b, 128, S);
    bothU32(b, 132, ptSize[which]);
    b.writeUInt32LE(which === 0 ? ptLba.l0 : ptLba.l1, 140);
    b.writeUInt32BE(which === 0 ? ptLba.m0 : ptLba.m1, 148);
    record({ name: Buffer.from([0]), lba: root.lba[which], size: root.size[which], dir: true, date }).copy(b, 156);
    for (const [o, len] of [
      [190, 128],
      [318, 128],
      [446, 128],
      [574, 128],
      [702, 37],
      [739, 37],
      [776, 37],
    ] as const) {
      if (type === 1) b.write(''.padEnd(len, ' '), o, 'latin1');
      else text(o, len - (len % 2), '');
    }
    if (type === 1) b.write('KILN MAKE-SEED'.padEnd(128, ' '), 574, 'latin1');
    const stamp = volDate(time);
    for (const o of [813, 830, 864]) b.write(stamp, o, 'latin1');
    b.write('0000000000000000', 847, 'latin1');
    b[881] = 1;
    return b;
  };
  descriptor(1).copy(img, 16 * S);
  descriptor(2).copy(img, 17 * S);
  const term = Buffer.alloc(S);
  term[0] = 255;
  term.write('CD001', 1, 'latin1');
  term[6] = 1;
  term.copy(img, 18 * S);
  pathTable(0, false).copy(img, ptLba.l0 * S);
  pathTable(0, true).copy(img, ptLba.m0 * S);
  pathTable(1, false).copy(img, ptLba.l1 * S);
  pathTable(1, true).copy(img, ptLba.m1 * S);
  for (const d of all) {
    const ceLba = d.lba[0] + d.size[0] / S;
    const areas = new ContinuationAreas(ceLba);
    packRecords(
      rrRecords(
        d,
        (x) => x.lba[0],
        (x) => x.size[0],
        areas,
      ),
    ).copy(img, d.lba[0] * S);
    if (areas.blocks.length !== d.ceBlocks)
      throw new Error('ISO9660 writer: continuation areas changed size between passes');
    for (const [i, b] of areas.blocks.entries()) b.copy(img, (ceLba + i) * S);
    packRecords(
      jolietRecords(
        d,
        (x) => x.lba[1],
        (x) => x.size[1],
      ),
    ).copy(img, d.lba[1] * S);
    for (const f of d.files)
      if (f.data.length > 0) Buffer.from(f.data.buffer, f.data.byteOffset, f.data.length).copy(img, f.lba * S);
  }
  return img;
}

/** The Rock Ridge extension reference (RRIP 1.09), in the System Use field of the root's '.' record. */
const ER = (() => {
  const id = Buffer.from('RRIP_1991A', 'latin1');
  const des = Buffer.from(
    'THE ROCK RIDGE INTERCHANGE PROTOCOL PROVIDES SUPPORT FOR POSIX FILE SYSTEM SEMANTICS',
    'latin1',
  );
  const src = Buffer.from('SEE IEEE P1282 ROCK RIDGE INTERCHANGE PROTOCOL', 'latin1');
  return Buffer.concat([
    Buffer.from([0x45, 0x52, 8 + id.length + des.length + src.length, 1, id.length, des.length, src.length, 1]),
    id,
    des,
    src,
  ]);
})();
