// ISO9660 reader: volume descriptors, directory records, multi-extent files, Joliet and Rock Ridge names.
import { MAX_READ_BYTES, type BlockReader } from './block-reader';
import { FilesystemError } from './filesystem-error';
import { ImageFileTree, type FsBackend, type FsNode } from './image-file-tree';
import { stripIsoVersion } from './name-resolution';
import { u16le, u32le } from './little-endian';

const SECTOR = 2048;
const FIRST_DESCRIPTOR = 16;
const MAX_DESCRIPTORS = 64;
const MAX_DIR_BYTES = 16 * 1024 * 1024;
const MAX_EXTENTS_PER_FILE = 4096;
const MAX_CE_HOPS = 32;
const MAX_CACHED_ENTRIES = 200_000;

export interface IsoNode extends FsNode {
  /** [byte offset, byte length] of each extent of a file, or the directory's one extent. */
  extents: Array<[number, number]>;
}

export interface Iso9660Volume {
  fsType: 'iso9660';
  label: string;
  /** blkid's form: the volume creation time 'YYYY-MM-DD-HH-MM-SS-cc'. */
  uuid?: string;
  /** Bytes covered by the volume (volume space size × block size). */
  size: number;
  names: 'rock-ridge' | 'joliet' | 'iso9660';
  hasJoliet: boolean;
  hasRockRidge: boolean;
  tree: ImageFileTree<IsoNode>;
}

function ascii(b: Uint8Array): string {
  return Buffer.from(b).toString('latin1');
}
function ucs2be(b: Uint8Array): string {
  const n = b.length & ~1;
  const swapped = Buffer.alloc(n);
  for (let i = 0; i < n; i += 2) {
    swapped[i] = b[i + 1] as number;
    swapped[i + 1] = b[i] as number;
  }
  return swapped.toString('utf16le');
}

/** True when the reader holds an ISO9660 volume (a 'CD001' descriptor at sector 16). */
export async function looksLikeIso9660(reader: BlockReader): Promise<boolean> {
  if (reader.size < (FIRST_DESCRIPTOR + 1) * SECTOR) return false;
  const d = await reader.read(FIRST_DESCRIPTOR * SECTOR, 8);
  return ascii(d.subarray(1, 6)) === 'CD001';
}

interface Descriptor {
  blockSize: number;
  root: Uint8Array;
  label: string;
  volumeBlocks: number;
  created?: string;
}

/** Opens the ISO9660 volume on READER; throws FilesystemError when there is none or it is corrupt. */
export async function openIso9660(reader: BlockReader): Promise<Iso9660Volume> {
  let primary: Descriptor | undefined;
  let joliet: Descriptor | undefined;
  for (let i = 0; i < MAX_DESCRIPTORS; i++) {
    const offset = (FIRST_DESCRIPTOR + i) * SECTOR;
    if (offset + SECTOR > reader.size) break;
    const d = await reader.read(offset, SECTOR);
    if (ascii(d.subarray(1, 6)) !== 'CD001') {
      if (i === 0) throw new FilesystemError(reader.name, 'no ISO9660 volume descriptor at sector 16');
      break;
    }
    const type = d[0];
    if (type === 255) break;
    if (type === 1 && !primary) primary = parseDescriptor(reader, d, false);
    if (type === 2 && !joliet) {
      const esc = ascii(d.subarray(88, 91));
      if (esc === '%/@' || esc === '%/C' || esc === '%/E') joliet = parseDescriptor(reader, d, true);
    }
  }
  if (!primary) throw new FilesystemError(reader.name, 'ISO9660 image has no primary volume descriptor');
  const backend = new IsoBackend(reader, primary.blockSize);
  const primaryRoot = backend.rootNode(primary.root, 'primary');
  const rrSkip = await backend.detectRockRidge(primaryRoot);
  let root: IsoNode;
  let names: Iso9660Volume['names'];
  if (rrSkip !== undefined) {
    backend.useRockRidge(rrSkip);
    root = primaryRoot;
    names = 'rock-ridge';
  } else if (joliet) {
    backend.useJoliet(joliet.blockSize);
    root = backend.rootNode(joliet.root, 'joliet');
    names = 'joliet';
  } else {
    root = primaryRoot;
    names = 'iso9660';
  }
  backend.setRoot(root);
  const label = joliet?.label.trim() || primary.label.trim();
  return {
    fsType: 'iso9660',
    label,
    ...(primary.created ? { uuid: primary.created } : {}),
    size: primary.volumeBlocks * primary.blockSize,
    names,
    hasJoliet: joliet !== undefined,
    hasRockRidge: rrSkip !== undefined,
    tree: new ImageFileTree(backend),
  };
}

function parseDescriptor(reader: BlockReader, d: Uint8Array, isJoliet: boolean): Descriptor {
  const blockSize = u16le(d, 128);
  if (![512, 1024, 2048, 4096].includes(blockSize))
    throw new FilesystemError(reader.name, `ISO9660 logical block size ${blockSize} is not supported`);
  const rawLabel = d.subarray(40, 72);
  const label = (isJoliet ? ucs2be(rawLabel) : ascii(rawLabel)).replace(/\0/g, '').trimEnd();
  const stamp = ascii(d.subarray(813, 829));
  const created =
    /^\d{16}$/.test(stamp) && stamp !== '0000000000000000'
      ? `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}-${stamp.slice(8, 10)}-${stamp.slice(10, 12)}-${stamp.slice(12, 14)}-${stamp.slice(14, 16)}`
      : undefined;
  return { blockSize, root: d.slice(156, 190), label, volumeBlocks: u32le(d, 80), ...(created ? { created } : {}) };
}

interface RrInfo {
  name?: string;
  mode?: number;
  symlink?: string;
  childLink?: number;
  relocated: boolean;
}

class IsoBackend implements FsBackend<IsoNode> {
  readonly device: string;
  private root_: IsoNode | undefined;
  private mode: 'primary' | 'joliet' | 'rock-ridge' = 'primary';
  private rrSkip = 0;
  private readonly dirCache = new Map<number, IsoNode[]>();
  private cachedEntries = 0;

  constructor(
    private readonly reader: BlockReader,
    private blockSize: number,
  ) {
    this.device = reader.name;
  }

  setRoot(root: IsoNode): void {
    this.root_ = root;
  }
  useRockRidge(skip: number): void {
    this.mode = 'rock-ridge';
    this.rrSkip = skip;
  }
  useJoliet(blockSize: number): void {
    this.mode = 'joliet';
    this.blockSize = blockSize;
  }

  async root(): Promise<IsoNode> {
    if (!this.root_) throw new FilesystemError(this.device, 'ISO9660 root not set');
    return this.root_;
  }

  rootNode(record: Uint8Array, _which: string): IsoNode {
    const lba = u32le(record, 2);
    const len = u32le(record, 10);
    return { name: '', altNames: [], type: 'directory', size: len, extents: [[lba * this.blockSize, len]] };
  }

  /** The SUSP skip length when the root's '.' record carries an SP entry (Rock Ridge), else undefined. */
  async detectRockRidge(root: IsoNode): Promise<number | undefined> {
    const [offset, len] = root.extents[0] as [number, number];
    if (len < 34) return undefined;
    const first = await this.readBytes(offset, Math.min(len, SECTOR));
    const recLen = first[0] ?? 0;
    const nameLen = first[32] ?? 0;
    if (recLen < 34 || recLen > first.length) return undefined;
    let su = 33 + nameLen + (nameLen % 2 === 0 ? 1 : 0);
    if (
      su + 7 <= recLen &&
      ascii(first.subarray(su, su + 2)) === 'SP' &&
      first[su + 4] === 0xbe &&
      first[su + 5] === 0xef
    ) {
      return first[su + 6] ?? 0;
    }
    // Some writers start the system use area one byte later.
    su = 34;
    if (
      su + 7 <= recLen &&
      ascii(first.subarray(su, su + 2)) === 'SP' &&
      first[su + 4] === 0xbe &&
      first[su + 5] === 0xef
    )
      return first[su + 6] ?? 0;
    return undefined;
  }

  private readBytes(offset: number, len: number): Promise<Uint8Array> {
    if (offset + len > this.reader.size) {
      throw new FilesystemError(
        this.device,
        `ISO9660 extent at byte ${offset} (${len} bytes) lies past the end of the image (${this.reader.size} bytes)`,
      );
    }
    return this.reader.read(offset, len);
  }

  async readDir(dir: IsoNode): Promise<IsoNode[]> {
    const [offset, len] = dir.extents[0] as [number, number];
    const cached = this.dirCache.get(offset);
    if (cached) return cached;
    if (len > MAX_DIR_BYTES)
      throw new FilesystemError(
        this.device,
        `ISO9660 directory at byte ${offset} claims ${len} bytes (limit ${MAX_DIR_BYTES})`,
      );
    const data = await this.readBytes(offset, len);
    const out: IsoNode[] = [];
    let pos = 0;
    let pending: IsoNode | undefined;
    while (pos < data.length) {
      const recLen = data[pos] ?? 0;
      if (recLen === 0) {
        pos = (Math.floor(pos / this.blockSize) + 1) * this.blockSize;
        continue;
      }
      if (recLen < 34 || pos + recLen > data.length) {
        throw new FilesystemError(
          this.device,
          `corrupt ISO9660 directory record at byte ${offset + pos} (length ${recLen})`,
        );
      }
      const rec = data.subarray(pos, pos + recLen);
      pos += recLen;
      const nameLen = rec[32] ?? 0;
      if (33 + nameLen > recLen)
        throw new FilesystemError(this.device, `ISO9660 name runs past its record at byte ${offset + pos - recLen}`);
      const rawName = rec.subarray(33, 33 + nameLen);
      if (nameLen === 1 && (rawName[0] === 0 || rawName[0] === 1)) continue;
      const flags = rec[25] ?? 0;
      if ((rec[26] ?? 0) !== 0)
        throw new FilesystemError(
          this.device,
          `interleaved ISO9660 files are not supported (record at byte ${offset + pos - recLen})`,
        );
      const extentOffset = (u32le(rec, 2) + (rec[1] ?? 0)) * this.blockSize;
      const dataLen = u32le(rec, 10);
      const isoName = this.mode === 'joliet' ? ucs2be(rawName) : ascii(rawName);
      let name = this.mode === 'joliet' ? stripIsoVersion(isoName) : stripIsoVersion(isoName).toLowerCase();
      let type: IsoNode['type'] = flags & 0x02 ? 'directory' : 'file';
      let target: string | undefined;
      let extent: [number, number] = [extentOffset, dataLen];
      if (this.mode === 'rock-ridge') {
        const suStart = 33 + nameLen + (nameLen % 2 === 0 ? 1 : 0) + this.rrSkip;
        const rr = await this.parseRockRidge(rec.subarray(Math.min(suStart, recLen)));
        if (rr.relocated) continue;
        if (rr.name !== undefined) name = rr.name;
        if (rr.childLink !== undefined) {
          const loc = rr.childLink * this.blockSize;
          const dot = await this.readBytes(loc, 34);
          type = 'directory';
          extent = [loc, u32le(dot, 10)];
        } else if (rr.mode !== undefined && (rr.mode & 0o170000) === 0o120000) {
          type = 'symlink';
          target = rr.symlink ?? '';
        }
      }
      if (pending && pending.name === name && type === 'file') {
        if (pending.extents.length >= MAX_EXTENTS_PER_FILE)
          throw new FilesystemError(
            this.device,
            `ISO9660 file '${name}' has more than ${MAX_EXTENTS_PER_FILE} extents`,
          );
        pending.extents.push(extent);
        pending.size += dataLen;
      } else {
        const node: IsoNode = {
          name,
          altNames: isoName === name ? [] : [isoName],
          type,
          size: type === 'directory' ? extent[1] : dataLen,
          extents: [extent],
          ...(target !== undefined ? { target } : {}),
        };
        out.push(node);
        pending = node;
      }
      if (!(flags & 0x80)) pending = undefined;
    }
    this.cachedEntries += out.length;
    if (this.cachedEntries > MAX_CACHED_ENTRIES) {
      this.dirCache.clear();
      this.cachedEntries = out.length;
    }
    this.dirCache.set(offset, out);
    return out;
  }

  private async parseRockRidge(area: Uint8Array): Promise<RrInfo> {
    const info: RrInfo = { relocated: false };
    let name = '';
    let nameDone = false;
    let link: string[] = [];
    let linkPart = '';
    let hops = 0;
    let buf = area;
    for (;;) {
      let pos = 0;
      let next: [number, number] | undefined;
      while (pos + 4 <= buf.length) {
        const sig = ascii(buf.subarray(pos, pos + 2));
        const len = buf[pos + 2] ?? 0;
        if (len < 4 || pos + len > buf.length) break;
        const e = buf.subarray(pos, pos + len);
        pos += len;
        if (sig === 'ST') break;
        if (sig === 'CE' && len >= 28) next = [u32le(e, 4) * this.blockSize + u32le(e, 12), u32le(e, 20)];
        else if (sig === 'NM' && len >= 5 && !nameDone) {
          const f = e[4] ?? 0;
          if (f & 0x02) name = '.';
          else if (f & 0x04) name = '..';
          else name += Buffer.from(e.subarray(5)).toString('utf8');
          if (!(f & 0x01)) nameDone = true;
          info.name = name;
        } else if (sig === 'PX' && len >= 12) info.mode = u32le(e, 4);
        else if (sig === 'CL' && len >= 12) info.childLink = u32le(e, 4);
        else if (sig === 'RE') info.relocated = true;
        else if (sig === 'SL' && len >= 5) {
          let p = 5;
          while (p + 2 <= e.length) {
            const cf = e[p] ?? 0;
            const cl = e[p + 1] ?? 0;
            const content = Buffer.from(e.subarray(p + 2, Math.min(e.length, p + 2 + cl))).toString('utf8');
            p += 2 + cl;
            if (cf & 0x02) linkPart += '.';
            else if (cf & 0x04) linkPart += '..';
            else if (cf & 0x08) {
              link = [''];
              linkPart = '';
              continue;
            } else linkPart += content;
            if (!(cf & 0x01)) {
              link.push(linkPart);
              linkPart = '';
            }
          }
          info.symlink = link.length === 1 && link[0] === '' ? '/' : link.join('/');
        }
      }
      if (!next) break;
      if (++hops > MAX_CE_HOPS)
        throw new FilesystemError(
          this.device,
          `Rock Ridge continuation chain longer than ${MAX_CE_HOPS} areas (a loop?)`,
        );
      if (next[1] > SECTOR * 4)
        throw new FilesystemError(this.device, `Rock Ridge continuation area of ${next[1]} bytes is too large`);
      buf = await this.readBytes(next[0], next[1]);
    }
    return info;
  }

  async readData(file: IsoNode): Promise<Uint8Array> {
    if (file.extents.length === 1) {
      const [o, l] = file.extents[0] as [number, number];
      return this.readBytes(o, l);
    }
    if (file.size > MAX_READ_BYTES)
      throw new FilesystemError(
        this.device,
        `ISO9660 file '${file.name}' claims ${file.size} bytes (limit ${MAX_READ_BYTES})`,
      );
    const out = Buffer.alloc(file.size);
    let at = 0;
    for (const [o, l] of file.extents) {
      out.set(await this.readBytes(o, l), at);
      at += l;
    }
    return out;
  }
}
