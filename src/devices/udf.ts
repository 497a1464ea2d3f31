// UDF reader (ECMA-167 / OSTA UDF 1.02–2.01, what Azure's provisioning media and mkudffs write): label, directories,
// files; read-only.
import { MAX_READ_BYTES, type BlockReader } from './block-reader';
import { FilesystemError } from './filesystem-error';
import { ImageFileTree, type FsBackend, type FsNode } from './image-file-tree';
import { u16le, u32le, u64le } from './little-endian';

/** Where the Volume Recognition Sequence starts (byte 32768, whatever the block size). */
const VRS_OFFSET = 32768;
const MAX_VRS_DESCRIPTORS = 32;
/** The anchor sits at logical sector 256 (ECMA-167 3/8.4.2.1); block sizes tried in blkid's order. */
const ANCHOR_SECTOR = 256;
const BLOCK_SIZES = [2048, 512, 1024, 4096];
const MAX_VDS_DESCRIPTORS = 64;
const MAX_DIR_BYTES = 16 * 1024 * 1024;
const MAX_AD_EXTENTS = 4096;
const MAX_CACHED_DIRS = 10_000;

// Descriptor tag identifiers (ECMA-167 3/7.2.1 and 4/7.2.1).
const TAG_PVD = 1;
const TAG_AVDP = 2;
const TAG_VDP = 3;
const TAG_PD = 5;
const TAG_LVD = 6;
const TAG_TD = 8;
const TAG_FSD = 256;
const TAG_FID = 257;
const TAG_FE = 261;
const TAG_EFE = 266;

/** A location inside the logical volume: block number in a partition (lb_addr). */
interface LbAddr {
  block: number;
  partitionRef: number;
}

export interface UdfNode extends FsNode {
  /** Where the node's File Entry (ICB) is. */
  icb: LbAddr;
  /** Parsed lazily from the File Entry. */
  entry?: FileEntry;
}

interface FileEntry {
  fileType: number;
  length: number;
  /** Embedded data (allocation type 3) or the byte extents holding the data. */
  embedded?: Uint8Array;
  extents: Array<{ offset: number; length: number; sparse: boolean }>;
}

export interface UdfVolume {
  fsType: 'udf';
  /** blkid's LABEL: the Logical Volume Identifier (the Primary Volume Identifier when it is empty). */
  label: string;
  /** The UDF revision the domain identifier names, e.g. '2.01'. */
  revision?: string;
  /** blkid's UUID: the first 16 characters of the volume set identifier, lower-cased hex. */
  uuid?: string;
  blockSize: number;
  tree: ImageFileTree<UdfNode>;
}

/**
 * OSTA Compressed Unicode (UDF 2.1.1): a compression id byte (8: one byte a character, 16: UCS-2 big-endian), then the
 * characters.
 */
export function decodeOstaUnicode(b: Uint8Array): string {
  if (b.length === 0) return '';
  const id = b[0];
  const body = b.subarray(1);
  if (id === 8 || id === 254) return Buffer.from(body).toString('latin1');
  if (id === 16 || id === 255) {
    const n = body.length & ~1;
    const le = Buffer.alloc(n);
    for (let i = 0; i < n; i += 2) {
      le[i] = body[i + 1] as number;
      le[i + 1] = body[i] as number;
    }
    return le.toString('utf16le');
  }
  return '';
}

/** A dstring field (ECMA-167 1/7.2.12): the last byte holds how many of the bytes before it are used. */
function dstring(field: Uint8Array): string {
  const used = field[field.length - 1] ?? 0;
  if (used === 0 || used > field.length - 1) return '';
  return decodeOstaUnicode(field.subarray(0, used)).replace(/\0+$/, '');
}

/**
 * True when a descriptor tag is sound: its checksum adds up, its identifier is WANT and (when given) it says it lives
 * at LOCATION.
 */
function tagOk(d: Uint8Array, want: number, location?: number): boolean {
  if (d.length < 16) return false;
  let sum = 0;
  for (let i = 0; i < 16; i++) if (i !== 4) sum = (sum + (d[i] as number)) & 0xff;
  if (sum !== d[4]) return false;
  if (u16le(d, 0) !== want) return false;
  return location === undefined || u32le(d, 12) === location;
}

/**
 * True when READER holds a UDF volume: an NSR02/NSR03 descriptor in the Volume Recognition Sequence (what blkid checks
 * first).
 */
export async function looksLikeUdf(reader: BlockReader): Promise<boolean> {
  for (const step of [2048, 4096]) {
    for (let i = 0; i < MAX_VRS_DESCRIPTORS; i++) {
      const offset = VRS_OFFSET + i * step;
      if (offset + 8 > reader.size) break;
      const id = Buffer.from(await reader.read(offset + 1, 5)).toString('latin1');
      if (id === 'NSR02' || id === 'NSR03') return true;
      if (!['BEA01', 'CD001', 'CDW02', 'BOOT2', 'TEA01'].includes(id)) break;
    }
  }
  return false;
}

/** Opens the UDF volume on READER; throws FilesystemError when there is none or it is corrupt. */
export async function openUdf(reader: BlockReader): Promise<UdfVolume> {
  const found = await findAnchor(reader);
  if (!found)
    throw new FilesystemError(
      reader.name,
      'no UDF anchor volume descriptor at sector 256 (block sizes 512–4096 tried)',
    );
  const { blockSize, anchor } = found;
  const vds = await readVolumeDescriptors(reader, blockSize, u32le(anchor, 20), u32le(anchor, 16));
  const lvd = vds.lvd;
  if (!lvd) throw new FilesystemError(reader.name, 'UDF volume has no logical volume descriptor');
  const lvBlockSize = u32le(lvd, 212);
  if (lvBlockSize !== blockSize)
    throw new FilesystemError(
      reader.name,
      `UDF logical block size ${lvBlockSize} differs from the sector size ${blockSize}; not supported`,
    );
  const partitions = partitionMaps(reader.name, lvd, vds.partitions);
  const label = dstring(lvd.subarray(84, 84 + 128)) || (vds.pvd ? dstring(vds.pvd.subarray(24, 24 + 32)) : '');
  const domain = lvd.subarray(216, 216 + 32);
  const revision = Buffer.from(domain.subarray(1, 24)).toString('latin1').startsWith('*OSTA UDF Compliant')
    ? ((v) => `${(v >> 8).toString(16)}.${(v & 0xff).toString(16).padStart(2, '0')}`)(u16le(domain, 24))
    : undefined;
  const fsdAddr: LbAddr = { block: u32le(lvd, 248 + 4), partitionRef: u16le(lvd, 248 + 8) };
  const backend = new UdfBackend(reader, blockSize, partitions);
  const fsd = await backend.readBlock(fsdAddr);
  if (!tagOk(fsd, TAG_FSD, fsdAddr.block))
    throw new FilesystemError(reader.name, `UDF file set descriptor at block ${fsdAddr.block} is missing or damaged`);
  backend.rootIcb = { block: u32le(fsd, 400 + 4), partitionRef: u16le(fsd, 400 + 8) };
  const uuid = vds.pvd ? volumeSetUuid(vds.pvd.subarray(72, 72 + 128)) : undefined;
  return {
    fsType: 'udf',
    label,
    ...(revision ? { revision } : {}),
    ...(uuid ? { uuid } : {}),
    blockSize,
    tree: new ImageFileTree(backend),
  };
}

/**
 * The UUID blkid shows for a UDF volume: the volume set identifier's first 16 characters when they are hex
 * digits (mkudffs and genisoimage write them so), else the hex of its first 8 bytes.
 */
function volumeSetUuid(field: Uint8Array): string | undefined {
  const vsid = dstring(field);
  if (!vsid) return undefined;
  const head = vsid.slice(0, 16);
  if (/^[0-9a-fA-F]{16}$/.test(head)) return head.toLowerCase();
  return Buffer.from(vsid, 'latin1').subarray(0, 8).toString('hex');
}

async function findAnchor(reader: BlockReader): Promise<{ blockSize: number; anchor: Uint8Array } | undefined> {
  for (const bs of BLOCK_SIZES) {
    const offset = ANCHOR_SECTOR * bs;
    if (offset + 512 > reader.size) continue;
    const d = await reader.read(offset, 512);
    if (tagOk(d, TAG_AVDP, ANCHOR_SECTOR)) return { blockSize: bs, anchor: d };
  }
  return undefined;
}

interface VolumeDescriptors {
  pvd?: Uint8Array;
  lvd?: Uint8Array;
  /** Partition number → first byte of the partition. */
  partitions: Map<number, { start: number; length: number }>;
}

async function readVolumeDescriptors(
  reader: BlockReader,
  bs: number,
  location: number,
  length: number,
): Promise<VolumeDescriptors> {
  const out: VolumeDescriptors = { partitions: new Map() };
  let block = location;
  let left = Math.min(Math.floor(length / bs), MAX_VDS_DESCRIPTORS);
  let hops = 0;
  while (left-- > 0) {
    if ((block + 1) * bs > reader.size)
      throw new FilesystemError(reader.name, `UDF volume descriptor sequence runs past the end (block ${block})`);
    const d = await reader.read(block * bs, bs);
    const id = u16le(d, 0);
    if (!tagOk(d, id, block)) break;
    if (id === TAG_TD) break;
    if (id === TAG_VDP) {
      // A pointer to the next extent of the sequence.
      if (++hops > 8) throw new FilesystemError(reader.name, 'UDF volume descriptor pointers loop');
      block = u32le(d, 24);
      left = Math.min(Math.floor(u32le(d, 20) / bs), MAX_VDS_DESCRIPTORS);
      continue;
    }
    if (id === TAG_PVD) out.pvd ??= d;
    else if (id === TAG_LVD) out.lvd ??= d;
    else if (id === TAG_PD) out.partitions.set(u16le(d, 22), { start: u32le(d, 188) * bs, length: u32le(d, 192) * bs });
    block++;
  }
  return out;
}

/** Partition reference number → byte range, from the logical volume's type 1 maps (what UDF ≤ 2.01 media use). */
function partitionMaps(
  device: string,
  lvd: Uint8Array,
  parts: VolumeDescriptors['partitions'],
): Array<{ start: number; length: number }> {
  const count = u32le(lvd, 268);
  const tableLength = u32le(lvd, 264);
  if (count > 64 || 440 + tableLength > lvd.length)
    throw new FilesystemError(device, `UDF partition map table is implausible (${count} maps, ${tableLength} bytes)`);
  const out: Array<{ start: number; length: number }> = [];
  let o = 440;
  for (let i = 0; i < count; i++) {
    const type = lvd[o];
    const len = lvd[o + 1] ?? 0;
    if (len < 2 || o + len > 440 + tableLength) throw new FilesystemError(device, `UDF partition map ${i} is damaged`);
    if (type !== 1) {
      const what = Buffer.from(lvd.subarray(o + 5, o + 28))
        .toString('latin1')
        .replace(/\0+$/, '');
      throw new FilesystemError(
        device,
        `UDF partition map ${i} is of type ${type} (${what || 'unknown'}); only type 1 (UDF up to 2.01) is read`,
      );
    }
    const p = parts.get(u16le(lvd, o + 4));
    if (!p)
      throw new FilesystemError(
        device,
        `UDF partition map ${i} names partition ${u16le(lvd, o + 4)}, which has no partition descriptor`,
      );
    out.push(p);
    o += len;
  }
  return out;
}

class UdfBackend implements FsBackend<UdfNode> {
  rootIcb: LbAddr = { block: 0, partitionRef: 0 };
  private readonly dirCache = new Map<string, UdfNode[]>();
  readonly device: string;

  constructor(
    private readonly reader: BlockReader,
    private readonly bs: number,
    private readonly partitions: Array<{ start: number; length: number }>,
  ) {
    this.device = reader.name;
  }

  /** Byte offset of ADDR, checked against its partition. */
  offsetOf(addr: LbAddr, length = this.bs): number {
    const p = this.partitions[addr.partitionRef];
    if (!p)
      throw new FilesystemError(
        this.device,
        `UDF address names partition reference ${addr.partitionRef}, which the volume does not have`,
      );
    const rel = addr.block * this.bs;
    if (rel + length > p.length)
      throw new FilesystemError(this.device, `UDF block ${addr.block} (${length} bytes) lies outside its partition`);
    return p.start + rel;
  }

  async readBlock(addr: LbAddr): Promise<Uint8Array> {
    return this.reader.read(this.offsetOf(addr), this.bs);
  }

  async root(): Promise<UdfNode> {
    const node: UdfNode = { name: '', altNames: [], type: 'directory', size: 0, icb: this.rootIcb };
    await this.entryOf(node);
    return node;
  }

  /** Reads and caches NODE's File Entry (or Extended File Entry). */
  async entryOf(node: UdfNode): Promise<FileEntry> {
    if (node.entry) return node.entry;
    const d = await this.readBlock(node.icb);
    const isFe = tagOk(d, TAG_FE, node.icb.block);
    const isEfe = !isFe && tagOk(d, TAG_EFE, node.icb.block);
    if (!isFe && !isEfe)
      throw new FilesystemError(this.device, `UDF file entry at block ${node.icb.block} is missing or damaged`);
    const fileType = d[16 + 11] ?? 0;
    const adType = u16le(d, 16 + 18) & 7;
    const length = u64le(d, 56);
    const lEa = u32le(d, isFe ? 168 : 208);
    const lAd = u32le(d, isFe ? 172 : 212);
    const adStart = (isFe ? 176 : 216) + lEa;
    if (adStart + lAd > d.length)
      throw new FilesystemError(
        this.device,
        `UDF file entry at block ${node.icb.block} has allocation descriptors past its block`,
      );
    const ads = d.subarray(adStart, adStart + lAd);
    const entry: FileEntry = { fileType, length, extents: [] };
    if (adType === 3) entry.embedded = ads.subarray(0, Math.min(length, ads.length));
    else entry.extents = await this.extents(ads, adType, node.icb.partitionRef);
    node.entry = entry;
    return entry;
  }

  /** Walks short (0) or long (1) allocation descriptors, following continuation extents (type 3). */
  private async extents(first: Uint8Array, adType: number, partitionRef: number): Promise<FileEntry['extents']> {
    if (adType !== 0 && adType !== 1)
      throw new FilesystemError(this.device, `UDF allocation descriptor type ${adType} is not supported`);
    const size = adType === 0 ? 8 : 16;
    const out: FileEntry['extents'] = [];
    let ads = first;
    for (let hops = 0; ; hops++) {
      let next: LbAddr | undefined;
      for (let o = 0; o + size <= ads.length; o += size) {
        const raw = u32le(ads, o);
        const len = raw & 0x3fffffff;
        const kind = raw >>> 30;
        if (len === 0) break;
        const addr: LbAddr = {
          block: u32le(ads, o + 4),
          partitionRef: adType === 0 ? partitionRef : u16le(ads, o + 8),
        };
        if (kind === 3) {
          next = addr;
          break;
        }
        if (out.length >= MAX_AD_EXTENTS)
          throw new FilesystemError(this.device, `UDF file has more than ${MAX_AD_EXTENTS} extents`);
        out.push({ offset: kind === 0 ? this.offsetOf(addr, len) : 0, length: len, sparse: kind !== 0 });
      }
      if (!next) return out;
      if (hops > 64) throw new FilesystemError(this.device, 'UDF allocation extent chain is too long');
      const block = await this.readBlock(next);
      // An Allocation Extent Descriptor (tag 258): its descriptors follow its 24-byte header.
      if (!tagOk(block, 258))
        throw new FilesystemError(this.device, `UDF allocation extent at block ${next.block} is damaged`);
      ads = block.subarray(24, 24 + Math.min(u32le(block, 20), this.bs - 24));
    }
  }

  private async contents(entry: FileEntry, limit: number, what: string): Promise<Uint8Array> {
    if (entry.length > limit)
      throw new FilesystemError(this.device, `UDF ${what} is ${entry.length} bytes (limit ${limit})`);
    if (entry.embedded) return entry.embedded;
    // The extents must cover the length the entry claims: a damaged length must not make us allocate for nothing.
    const covered = entry.extents.reduce((n, e) => n + e.length, 0);
    if (covered < entry.length)
      throw new FilesystemError(
        this.device,
        `UDF ${what} claims ${entry.length} bytes but its extents hold ${covered}`,
      );
    const out = Buffer.alloc(entry.length);
    let at = 0;
    for (const e of entry.extents) {
      if (at >= entry.length) break;
      const n = Math.min(e.length, entry.length - at);
      if (!e.sparse) out.set(await this.reader.read(e.offset, n), at);
      at += n;
    }
    return out;
  }

  async readData(file: UdfNode): Promise<Uint8Array> {
    return this.contents(await this.entryOf(file), MAX_READ_BYTES, `file '${file.name}'`);
  }

  async readDir(dir: UdfNode): Promise<UdfNode[]> {
    const key = `${dir.icb.partitionRef}:${dir.icb.block}`;
    const cached = this.dirCache.get(key);
    if (cached) return cached;
    const data = await this.contents(await this.entryOf(dir), MAX_DIR_BYTES, `directory '${dir.name || '/'}'`);
    const out: UdfNode[] = [];
    let o = 0;
    while (o + 38 <= data.length) {
      const fid = data.subarray(o);
      if (!tagOk(fid, TAG_FID))
        throw new FilesystemError(
          this.device,
          `UDF directory '${dir.name || '/'}' has a damaged identifier at byte ${o}`,
        );
      const characteristics = fid[18] ?? 0;
      const lFi = fid[19] ?? 0;
      const lIu = u16le(fid, 36);
      const total = (38 + lIu + lFi + 3) & ~3;
      if (o + 38 + lIu + lFi > data.length)
        throw new FilesystemError(
          this.device,
          `UDF directory '${dir.name || '/'}' has an identifier running past its end`,
        );
      o += total;
      // Deleted entries and the parent link are not children.
      if (characteristics & 0x04 || characteristics & 0x08) continue;
      const name = decodeOstaUnicode(fid.subarray(38 + lIu, 38 + lIu + lFi));
      if (!name || name === '.' || name === '..' || name.includes('/')) continue;
      const icb: LbAddr = { block: u32le(fid, 20 + 4), partitionRef: u16le(fid, 20 + 8) };
      const node: UdfNode = { name, altNames: [], type: characteristics & 0x02 ? 'directory' : 'file', size: 0, icb };
      const entry = await this.entryOf(node);
      if (entry.fileType === 12) {
        node.type = 'symlink';
        node.target = pathComponents(await this.contents(entry, 4096, `symbolic link '${name}'`));
      } else if (entry.fileType === 4) node.type = 'directory';
      node.size = node.type === 'file' ? entry.length : 0;
      out.push(node);
    }
    if (this.dirCache.size < MAX_CACHED_DIRS) this.dirCache.set(key, out);
    return out;
  }
}

/** A UDF symbolic link's body (ECMA-167 4/14.16 path components) as a '/'-separated path. */
function pathComponents(b: Uint8Array): string {
  const parts: string[] = [];
  let absolute = false;
  let o = 0;
  while (o + 4 <= b.length) {
    const type = b[o];
    const len = b[o + 1] ?? 0;
    const body = b.subarray(o + 4, o + 4 + len);
    if (type === 1 || type === 2) absolute = true;
    else if (type === 3) parts.push('..');
    else if (type === 4) parts.push('.');
    else if (type === 5) parts.push(decodeOstaUnicode(body));
    o += 4 + len;
  }
  return (absolute ? '/' : '') + parts.join('/');
}
