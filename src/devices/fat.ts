// FAT12/16/32 reader with VFAT long names: boot sector, FAT chains (fragmented or not), directories, labels.
import { MAX_READ_BYTES, type BlockReader } from './block-reader';
import { FilesystemError } from './filesystem-error';
import { ImageFileTree, type FsBackend, type FsNode } from './image-file-tree';
import { u16le, u32le } from './little-endian';

const MAX_DIR_ENTRIES = 65536;
const FAT_CHUNK = 4096;
const MAX_FAT_CHUNKS_CACHED = 512;

export type FatType = 'FAT12' | 'FAT16' | 'FAT32';

export interface FatNode extends FsNode {
  /** First cluster; 0 for the fixed FAT12/16 root and empty files. */
  cluster: number;
  isFixedRoot?: boolean;
}

export interface FatVolume {
  fsType: 'vfat';
  fatType: FatType;
  /** The root directory's volume-label entry when present, else the boot sector's, as blkid reports it. */
  label: string;
  /** The volume serial as blkid prints it: 'ABCD-1234'. */
  uuid?: string;
  size: number;
  clusterSize: number;
  clusterCount: number;
  tree: ImageFileTree<FatNode>;
}

interface Geometry {
  bytesPerSector: number;
  clusterSize: number;
  fatOffset: number;
  fatBytes: number;
  rootDirOffset: number;
  rootDirEntries: number;
  dataOffset: number;
  clusterCount: number;
  fatType: FatType;
  rootCluster: number;
  size: number;
}

function latin1(b: Uint8Array): string {
  return Buffer.from(b).toString('latin1');
}

/** Reads the boot sector's BPB; undefined when it is not a FAT boot sector. */
function parseBootSector(b: Uint8Array, deviceSize: number): Geometry | string {
  if (b.length < 512) return 'boot sector too short';
  if (b[510] !== 0x55 || b[511] !== 0xaa) return 'no boot signature';
  const jump = b[0];
  if (jump !== 0xeb && jump !== 0xe9 && jump !== 0x90) return 'no x86 jump at the start of the boot sector';
  const bytesPerSector = u16le(b, 11);
  if (![512, 1024, 2048, 4096].includes(bytesPerSector)) return `bytes per sector ${bytesPerSector} is not valid`;
  const spc = b[13] ?? 0;
  if (spc === 0 || (spc & (spc - 1)) !== 0) return `sectors per cluster ${spc} is not a power of two`;
  const reserved = u16le(b, 14);
  const fats = b[16] ?? 0;
  const rootEntries = u16le(b, 17);
  const total16 = u16le(b, 19);
  const media = b[21] ?? 0;
  const fatSize16 = u16le(b, 22);
  const total32 = u32le(b, 32);
  const fatSize32 = u32le(b, 36);
  if (reserved === 0) return 'no reserved sectors';
  if (fats === 0 || fats > 4) return `number of FATs ${fats} is not valid`;
  if (media !== 0xf0 && media < 0xf8) return `media byte 0x${media.toString(16)} is not valid`;
  const fatSectors = fatSize16 !== 0 ? fatSize16 : fatSize32;
  const totalSectors = total16 !== 0 ? total16 : total32;
  if (fatSectors === 0 || totalSectors === 0) return 'FAT size or total sectors is zero';
  const rootDirSectors = Math.ceil((rootEntries * 32) / bytesPerSector);
  const dataStart = reserved + fats * fatSectors + rootDirSectors;
  if (dataStart >= totalSectors) return 'the data area starts past the end of the volume';
  const clusterCount = Math.floor((totalSectors - dataStart) / spc);
  const fatType: FatType = clusterCount < 4085 ? 'FAT12' : clusterCount < 65525 ? 'FAT16' : 'FAT32';
  if (fatType === 'FAT32' && (fatSize16 !== 0 || rootEntries !== 0))
    return 'FAT32 cluster count with a FAT12/16 layout';
  if (fatType !== 'FAT32' && rootEntries === 0) return 'FAT12/16 volume without root directory entries';
  const bitsPerEntry = fatType === 'FAT12' ? 12 : fatType === 'FAT16' ? 16 : 32;
  if (Math.ceil(((clusterCount + 2) * bitsPerEntry) / 8) > fatSectors * bytesPerSector)
    return 'the FAT is too small for the cluster count';
  const size = totalSectors * bytesPerSector;
  void deviceSize;
  return {
    bytesPerSector,
    clusterSize: spc * bytesPerSector,
    fatOffset: reserved * bytesPerSector,
    fatBytes: fatSectors * bytesPerSector,
    rootDirOffset: (reserved + fats * fatSectors) * bytesPerSector,
    rootDirEntries: rootEntries,
    dataOffset: dataStart * bytesPerSector,
    clusterCount,
    fatType,
    rootCluster: fatType === 'FAT32' ? u32le(b, 44) : 0,
    size,
  };
}

/** True when the first sector of READER is a plausible FAT boot sector. */
export async function looksLikeFat(reader: BlockReader): Promise<boolean> {
  if (reader.size < 512) return false;
  return typeof parseBootSector(await reader.read(0, 512), reader.size) !== 'string';
}

/** Opens the FAT volume on READER; throws FilesystemError when there is none or it is corrupt. */
export async function openFat(reader: BlockReader): Promise<FatVolume> {
  if (reader.size < 512) throw new FilesystemError(reader.name, 'too small for a FAT boot sector');
  const boot = await reader.read(0, 512);
  const g = parseBootSector(boot, reader.size);
  if (typeof g === 'string') throw new FilesystemError(reader.name, `not a FAT filesystem: ${g}`);
  if (g.fatType === 'FAT32' && (g.rootCluster < 2 || g.rootCluster >= g.clusterCount + 2)) {
    throw new FilesystemError(reader.name, `FAT32 root cluster ${g.rootCluster} is outside the volume`);
  }
  const ext = g.fatType === 'FAT32' ? 64 : 36;
  const hasExt = boot[ext + 2] === 0x29;
  const bootLabel = hasExt ? latin1(boot.subarray(ext + 7, ext + 18)).trimEnd() : '';
  const serial = hasExt ? u32le(boot, ext + 3) : undefined;
  const backend = new FatBackend(reader, g);
  const root = await backend.root();
  const rootLabel = await backend.rootLabel(root);
  let label = rootLabel ?? bootLabel;
  if (label === 'NO NAME') label = '';
  const hex = serial !== undefined ? serial.toString(16).toUpperCase().padStart(8, '0') : undefined;
  return {
    fsType: 'vfat',
    fatType: g.fatType,
    label,
    ...(hex ? { uuid: `${hex.slice(0, 4)}-${hex.slice(4)}` } : {}),
    size: g.size,
    clusterSize: g.clusterSize,
    clusterCount: g.clusterCount,
    tree: new ImageFileTree(backend),
  };
}

function lfnChecksum(short: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < 11; i++) sum = ((((sum & 1) << 7) | (sum >> 1)) + (short[i] ?? 0)) & 0xff;
  return sum & 0xff;
}

class FatBackend implements FsBackend<FatNode> {
  readonly device: string;
  private readonly fatChunks = new Map<number, Uint8Array>();
  private readonly dirCache = new Map<number, FatNode[]>();

  constructor(
    private readonly reader: BlockReader,
    private readonly g: Geometry,
  ) {
    this.device = reader.name;
  }

  async root(): Promise<FatNode> {
    return this.g.fatType === 'FAT32'
      ? { name: '', altNames: [], type: 'directory', size: 0, cluster: this.g.rootCluster }
      : { name: '', altNames: [], type: 'directory', size: this.g.rootDirEntries * 32, cluster: 0, isFixedRoot: true };
  }

  private readBytes(offset: number, len: number): Promise<Uint8Array> {
    if (offset + len > this.reader.size) {
      throw new FilesystemError(
        this.device,
        `FAT structure at byte ${offset} (${len} bytes) lies past the end of the device (${this.reader.size} bytes); truncated image?`,
      );
    }
    return this.reader.read(offset, len);
  }

  private async fatByte(pos: number): Promise<number> {
    const chunk = Math.floor(pos / FAT_CHUNK);
    let data = this.fatChunks.get(chunk);
    if (!data) {
      const start = chunk * FAT_CHUNK;
      data = await this.readBytes(this.g.fatOffset + start, Math.min(FAT_CHUNK, this.g.fatBytes - start));
      if (this.fatChunks.size >= MAX_FAT_CHUNKS_CACHED) this.fatChunks.clear();
      this.fatChunks.set(chunk, data);
    }
    return data[pos % FAT_CHUNK] ?? 0;
  }

  /** The FAT entry of CLUSTER. */
  private async next(cluster: number): Promise<number> {
    switch (this.g.fatType) {
      case 'FAT12': {
        const pos = cluster + (cluster >> 1);
        const v = (await this.fatByte(pos)) | ((await this.fatByte(pos + 1)) << 8);
        return cluster & 1 ? v >> 4 : v & 0xfff;
      }
      case 'FAT16':
        return (await this.fatByte(cluster * 2)) | ((await this.fatByte(cluster * 2 + 1)) << 8);
      case 'FAT32': {
        const p = cluster * 4;
        const v =
          ((await this.fatByte(p)) | ((await this.fatByte(p + 1)) << 8) | ((await this.fatByte(p + 2)) << 16)) +
          ((await this.fatByte(p + 3)) & 0x0f) * 0x1000000;
        return v;
      }
    }
  }

  private isEnd(v: number): boolean {
    return this.g.fatType === 'FAT12' ? v >= 0xff8 : this.g.fatType === 'FAT16' ? v >= 0xfff8 : v >= 0x0ffffff8;
  }

  /**
   * The clusters of a chain starting at FIRST, as runs [first cluster, count]. Stops after LIMIT clusters
   * (a file needs no more than its size); a chain longer than the volume or pointing outside it is an error.
   */
  private async chain(first: number, limit: number, what: string): Promise<Array<[number, number]>> {
    const runs: Array<[number, number]> = [];
    let c = first;
    let n = 0;
    const max = this.g.clusterCount;
    // One bit per cluster: a chain that comes back to a cluster it already used is a loop.
    const seen = new Uint8Array(Math.ceil((max + 2) / 8));
    for (;;) {
      if (c < 2 || c >= max + 2)
        throw new FilesystemError(
          this.device,
          `${what}: cluster chain points to cluster ${c}, outside the volume (2..${max + 1})`,
        );
      if ((seen[c >> 3] as number) & (1 << (c & 7)))
        throw new FilesystemError(this.device, `${what}: cluster chain loops back to cluster ${c}`);
      seen[c >> 3] = (seen[c >> 3] as number) | (1 << (c & 7));
      const last = runs[runs.length - 1];
      if (last && last[0] + last[1] === c) last[1]++;
      else runs.push([c, 1]);
      if (++n >= limit) return runs;
      if (n > max)
        throw new FilesystemError(
          this.device,
          `${what}: cluster chain longer than the volume's ${max} clusters (a loop)`,
        );
      const v = await this.next(c);
      if (this.isEnd(v)) return runs;
      if (
        v === 0 ||
        (this.g.fatType === 'FAT12' ? v === 0xff7 : this.g.fatType === 'FAT16' ? v === 0xfff7 : v === 0x0ffffff7)
      ) {
        throw new FilesystemError(
          this.device,
          `${what}: cluster chain reaches a ${v === 0 ? 'free' : 'bad'} cluster after ${c}`,
        );
      }
      c = v;
    }
  }

  private async readRuns(runs: Array<[number, number]>, total: number): Promise<Uint8Array> {
    if (runs.length === 1) {
      const [c] = runs[0] as [number, number];
      return this.readBytes(this.g.dataOffset + (c - 2) * this.g.clusterSize, total);
    }
    const out = Buffer.alloc(total);
    let at = 0;
    for (const [c, count] of runs) {
      const len = Math.min(count * this.g.clusterSize, total - at);
      if (len <= 0) break;
      out.set(await this.readBytes(this.g.dataOffset + (c - 2) * this.g.clusterSize, len), at);
      at += len;
    }
    return out;
  }

  async readData(file: FatNode): Promise<Uint8Array> {
    if (file.size === 0) return new Uint8Array(0);
    if (file.size > MAX_READ_BYTES)
      throw new FilesystemError(this.device, `file '${file.name}' claims ${file.size} bytes (limit ${MAX_READ_BYTES})`);
    const needed = Math.ceil(file.size / this.g.clusterSize);
    if (needed > this.g.clusterCount)
      throw new FilesystemError(this.device, `file '${file.name}' is larger (${file.size} bytes) than the volume`);
    const runs = await this.chain(file.cluster, needed, `file '${file.name}'`);
    const got = runs.reduce((s, r) => s + r[1], 0);
    if (got < needed)
      throw new FilesystemError(
        this.device,
        `file '${file.name}' has ${file.size} bytes but its cluster chain ends after ${got} clusters`,
      );
    return this.readRuns(runs, file.size);
  }

  private async rawDir(dir: FatNode): Promise<Uint8Array> {
    if (dir.isFixedRoot) return this.readBytes(this.g.rootDirOffset, this.g.rootDirEntries * 32);
    const maxClusters = Math.ceil((MAX_DIR_ENTRIES * 32) / this.g.clusterSize);
    const runs = await this.chain(dir.cluster, maxClusters + 1, `directory '${dir.name || '/'}'`);
    const clusters = runs.reduce((s, r) => s + r[1], 0);
    if (clusters > maxClusters)
      throw new FilesystemError(
        this.device,
        `directory '${dir.name || '/'}' is longer than ${MAX_DIR_ENTRIES} entries (a loop?)`,
      );
    return this.readRuns(runs, clusters * this.g.clusterSize);
  }

  /** The volume label entry of the root directory, if any. */
  async rootLabel(root: FatNode): Promise<string | undefined> {
    const raw = await this.rawDir(root);
    for (let p = 0; p + 32 <= raw.length; p += 32) {
      const first = raw[p] ?? 0;
      if (first === 0) break;
      const attr = raw[p + 11] ?? 0;
      if (first === 0xe5 || attr === 0x0f) continue;
      if ((attr & 0x18) === 0x08) return latin1(raw.subarray(p, p + 11)).trimEnd();
    }
    return undefined;
  }

  async readDir(dir: FatNode): Promise<FatNode[]> {
    const key = dir.isFixedRoot ? -1 : dir.cluster;
    const cached = this.dirCache.get(key);
    if (cached) return cached;
    if (!dir.isFixedRoot && dir.cluster === 0) return [];
    const raw = await this.rawDir(dir);
    const out: FatNode[] = [];
    let lfn: string[] = [];
    let lfnSum = -1;
    let lfnNext = 0;
    for (let p = 0; p + 32 <= raw.length; p += 32) {
      const e = raw.subarray(p, p + 32);
      const first = e[0] ?? 0;
      if (first === 0) break;
      const attr = e[11] ?? 0;
      if (first === 0xe5) {
        lfn = [];
        continue;
      }
      if (attr === 0x0f) {
        const seq = first & 0x1f;
        if (first & 0x40) {
          lfn = [];
          lfnNext = seq;
          lfnSum = e[13] ?? 0;
        }
        if (seq === 0 || seq !== lfnNext || e[13] !== lfnSum) {
          lfn = [];
          lfnNext = -1;
          continue;
        }
        const units = Buffer.concat([e.subarray(1, 11), e.subarray(14, 26), e.subarray(28, 32)]);
        let text = units.toString('utf16le');
        const nul = text.indexOf('\0');
        if (nul >= 0) text = text.slice(0, nul);
        lfn[seq - 1] = text;
        lfnNext = seq - 1;
        continue;
      }
      if (attr & 0x08) {
        lfn = [];
        continue;
      }
      const shortRaw = Buffer.from(e.subarray(0, 11));
      if (shortRaw[0] === 0x05) shortRaw[0] = 0xe5;
      const nt = e[12] ?? 0;
      let base = latin1(shortRaw.subarray(0, 8)).trimEnd();
      let ext = latin1(shortRaw.subarray(8, 11)).trimEnd();
      const shortName = ext ? `${base}.${ext}` : base;
      if (nt & 0x08) base = base.toLowerCase();
      if (nt & 0x10) ext = ext.toLowerCase();
      const shown = ext ? `${base}.${ext}` : base;
      const longName = lfnNext === 0 && lfn.length > 0 && lfnSum === lfnChecksum(e) ? lfn.join('') : undefined;
      lfn = [];
      lfnNext = -1;
      if (shortName === '.' || shortName === '..') continue;
      const name = longName ?? shown;
      const isDir = (attr & 0x10) !== 0;
      const cluster = (this.g.fatType === 'FAT32' ? u16le(e, 20) * 0x10000 : 0) + u16le(e, 26);
      out.push({
        name,
        altNames: name === shortName ? [] : [shortName],
        type: isDir ? 'directory' : 'file',
        size: isDir ? 0 : u32le(e, 28),
        cluster,
      });
    }
    this.dirCache.set(key, out);
    return out;
  }
}
