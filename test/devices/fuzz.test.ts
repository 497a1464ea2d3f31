// Fuzz: seeded mutations of ISO9660, FAT12/16/32 and partitioned images (MBR with logical partitions, GPT); every
// parse, and every growpart-style rewrite of a mutated partition table, ends in bounded time with either a result
// or a KilnError, never a crash or a hang. KILN_FUZZ_ITERATIONS raises the per-image budget.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { BufferBlockReader } from '../../src/devices/block-reader';
import { writeFat } from '../../src/devices/fat-writer';
import type { FileTree } from '../../src/devices/filesystem-finder';
import { imageCandidates } from '../../src/devices/image-finder';
import { type DiskIo, growPartition } from '../../src/devices/partition-grow';
import { readPartitionTable } from '../../src/devices/partition-table';
import { writeIso9660 } from '../../src/devices/iso9660-writer';
import { openFilesystem, probe } from '../../src/devices/probe';
import { crc32 } from '../../src/util/crc32';
import { KilnError } from '../../src/util/errors';
import { seededRandom } from '../helpers/seeded-random';

const ITERATIONS = Number(process.env.KILN_FUZZ_ITERATIONS ?? 250);
const PARSE_BUDGET_MS = 3000;
const HANG_MS = 15000;

function corpus(): Array<{ name: string; image: Buffer; hot: number }> {
  const time = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));
  const files = [
    { path: 'meta-data', data: Buffer.from('instance-id: fuzz\n') },
    { path: 'user-data', data: Buffer.from('#cloud-config\n') },
    { path: 'openstack/latest/meta_data.json', data: Buffer.from('{"uuid":"u"}') },
    { path: 'openstack/latest/a rather long name for a file.json', data: Buffer.alloc(9000, 1) },
    { path: 'a/b/c/d/e.txt', data: Buffer.alloc(70, 2) },
  ];
  const iso = writeIso9660(files, { label: 'config-2', time });
  const fat12 = writeFat(files, { label: 'cidata', time, size: 256 * 1024 });
  const fat16 = writeFat(files, { label: 'cidata', time, size: 4 * 1024 * 1024, fatBits: 16 });
  const fat32 = writeFat(files, { label: 'cidata', time, size: 34 * 1024 * 1024, fatBits: 32 });
  // A disk with an MBR: partition 1 the FAT12 image, partition 2 extended holding logical 5 = the ISO.
  const disk = Buffer.alloc(2048 * 512);
  const entry = (o: number, type: number, start: number, sectors: number, buf = disk) => {
    buf[o + 4] = type;
    buf.writeUInt32LE(start, o + 8);
    buf.writeUInt32LE(sectors, o + 12);
  };
  entry(446, 0x0c, 1, 512);
  entry(462, 0x05, 600, 1400);
  disk[510] = 0x55;
  disk[511] = 0xaa;
  fat12.copy(disk, 512);
  const ebr = 600 * 512;
  entry(ebr + 446, 0x83, 2, iso.length / 512);
  disk[ebr + 510] = 0x55;
  disk[ebr + 511] = 0xaa;
  iso.copy(disk, (600 + 2) * 512);
  return [
    { name: 'iso9660', image: iso, hot: iso.length },
    { name: 'fat12', image: fat12, hot: 64 * 1024 },
    { name: 'fat16', image: fat16, hot: 96 * 1024 },
    { name: 'fat32', image: fat32, hot: 2 * 1024 * 1024 },
    { name: 'mbr-disk', image: disk, hot: disk.length },
    { name: 'gpt-disk', image: gptDisk(fat12, iso), hot: 34 * 512 },
  ];
}

/**
 * A GPT disk as sgdisk lays one out (protective MBR, header at LBA 1 with its CRCs, 128 entries of 128 bytes from
 * LBA 2, the backup header at the last LBA): partition 1 the FAT image, partition 2 the ISO, 4096 free sectors after
 * them (2 MiB, past growpart's 1 MiB minimum) so that growing the last one has room. The mutations land in the
 * first 34 sectors, the table itself.
 */
function gptDisk(fat: Buffer, iso: Buffer): Buffer {
  const p1 = 64;
  const p2 = p1 + fat.length / 512;
  const sectors = p2 + iso.length / 512 + 4096 + 33;
  const disk = Buffer.alloc(sectors * 512);
  disk[446 + 4] = 0xee;
  disk.writeUInt32LE(1, 446 + 8);
  disk.writeUInt32LE(Math.min(sectors - 1, 0xffffffff), 446 + 12);
  disk[510] = 0x55;
  disk[511] = 0xaa;
  const entries = Buffer.alloc(128 * 128);
  const basicData = Buffer.from('a2a0d0ebe5b9334487c068b6b72699c7', 'hex');
  const entry = (i: number, first: number, last: number, name: string) => {
    const e = entries.subarray(i * 128, (i + 1) * 128);
    basicData.copy(e, 0);
    e.writeUInt32LE(0x1000 + i, 16);
    e.writeBigUInt64LE(BigInt(first), 32);
    e.writeBigUInt64LE(BigInt(last), 40);
    Buffer.from(name, 'utf16le').copy(e, 56);
  };
  entry(0, p1, p2 - 1, 'cidata');
  entry(1, p2, p2 + iso.length / 512 - 1, 'config-2');
  const header = (self: number, backup: number, entriesLba: number): Buffer => {
    const h = Buffer.alloc(512);
    h.write('EFI PART', 0, 'latin1');
    h.writeUInt32LE(0x00010000, 8);
    h.writeUInt32LE(92, 12);
    h.writeBigUInt64LE(BigInt(self), 24);
    h.writeBigUInt64LE(BigInt(backup), 32);
    h.writeBigUInt64LE(34n, 40);
    h.writeBigUInt64LE(BigInt(sectors - 34), 48);
    h.fill(0x5a, 56, 72);
    h.writeBigUInt64LE(BigInt(entriesLba), 72);
    h.writeUInt32LE(128, 80);
    h.writeUInt32LE(128, 84);
    h.writeUInt32LE(crc32(entries), 88);
    h.writeUInt32LE(crc32(h.subarray(0, 92)), 16);
    return h;
  };
  header(1, sectors - 1, 2).copy(disk, 512);
  entries.copy(disk, 2 * 512);
  entries.copy(disk, (sectors - 33) * 512);
  header(sectors - 1, 1, sectors - 33).copy(disk, (sectors - 1) * 512);
  fat.copy(disk, p1 * 512);
  iso.copy(disk, p2 * 512);
  return disk;
}

/** A disk held in memory for growPartition, which reads and rewrites the table as it would through dd. */
function memoryDisk(image: Buffer): DiskIo {
  const bytes = Buffer.from(image);
  return {
    size: async () => bytes.length,
    read: async (offset, length) => Buffer.from(bytes.subarray(offset, offset + length)),
    write: async (offset, data) => {
      if (offset < 0 || offset + data.length > bytes.length)
        throw new Error(`write of ${data.length} bytes at ${offset} is outside the ${bytes.length}-byte disk`);
      data.copy(bytes, offset);
    },
  };
}

const INTERESTING = [
  0, 1, 2, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0xffffffff, 0x0ffffff7, 0x0ffffff8, 0x10000, 2048, 512,
];

function mutate(image: Buffer, hot: number, r: () => number): Buffer {
  const out = Buffer.from(image);
  const n = 1 + Math.floor(r() * 8);
  for (let i = 0; i < n; i++) {
    const at = Math.floor(r() * Math.min(hot, out.length - 4));
    const kind = r();
    if (kind < 0.5) out[at] = Math.floor(r() * 256);
    else if (kind < 0.8) out.writeUInt32LE(INTERESTING[Math.floor(r() * INTERESTING.length)] as number, at & ~1);
    else out.writeUInt16LE((INTERESTING[Math.floor(r() * INTERESTING.length)] as number) & 0xffff, at & ~1);
  }
  return out;
}

/** Lists and reads everything, bounded: a hostile tree can point a folder at itself. */
async function exercise(tree: FileTree): Promise<void> {
  let budget = 500;
  const walk = async (path: string, depth: number): Promise<void> => {
    const entries = await tree.list(path);
    for (const e of entries ?? []) {
      if (--budget < 0 || depth > 6) return;
      const p = `${path}/${e.name}`;
      if (e.type === 'directory') await walk(p, depth + 1);
      else await tree.readFile(p);
    }
  };
  await walk('', 0);
  await tree.readFile('openstack/latest/meta_data.json');
  await tree.exists('META_DA~1');
}

async function parseOnce(image: Buffer, disk: boolean): Promise<void> {
  if (disk) {
    // growpart's job on a hostile table: a result or a KilnError, and never a write outside the disk.
    for (const part of [1, 2, 5]) {
      try {
        await growPartition(memoryDisk(image), part);
      } catch (err) {
        if (!(err instanceof KilnError)) throw err;
      }
    }
  }
  const reader = new BufferBlockReader('fuzz.img', image);
  await probe(reader);
  for (const c of await imageCandidates(reader)) {
    try {
      const fs = await openFilesystem(c);
      if (fs) await exercise(fs.tree);
    } catch (err) {
      if (!(err instanceof KilnError)) throw err;
    }
  }
}

async function workerMain(): Promise<void> {
  const { iterations } = workerData as { iterations: number };
  for (const c of corpus()) {
    const disk = c.name.endsWith('-disk');
    await parseOnce(c.image, disk); // the unmutated image must parse cleanly
    for (let i = 0; i < iterations; i++) {
      const seed = (i + 1) * 2654435761 + c.name.length;
      parentPort?.postMessage({ kind: 'start', image: c.name, i, seed });
      const image = mutate(c.image, c.hot, seededRandom(seed, 0x9e3779b9));
      const t0 = performance.now();
      try {
        await parseOnce(image, disk);
      } catch (err) {
        parentPort?.postMessage({
          kind: 'crash',
          image: c.name,
          i,
          seed,
          error: err instanceof Error ? (err.stack ?? err.message) : String(err),
        });
        return;
      }
      const ms = performance.now() - t0;
      if (ms > PARSE_BUDGET_MS) {
        parentPort?.postMessage({ kind: 'slow', image: c.name, i, seed, ms });
        return;
      }
    }
  }
  parentPort?.postMessage({ kind: 'done' });
}

if (!isMainThread) {
  void workerMain();
} else {
  test('the corpus disks hold the partitions they are built with, and the GPT disk grows as growpart would', async () => {
    const disks = corpus().filter((c) => c.name.endsWith('-disk'));
    const mbr = await readPartitionTable(new BufferBlockReader('mbr.img', disks[0]?.image as Buffer));
    assert.deepEqual(
      mbr?.partitions.map((p) => p.number),
      [1, 2, 5],
    );
    const gptImage = disks[1]?.image as Buffer;
    const gpt = await readPartitionTable(new BufferBlockReader('gpt.img', gptImage));
    assert.equal(gpt?.kind, 'gpt');
    assert.deepEqual(
      gpt?.partitions.map((p) => p.number),
      [1, 2],
    );
    const grown = await growPartition(memoryDisk(gptImage), 2);
    assert.equal(grown.status, 'changed', JSON.stringify(grown));
  });

  test(`fuzz: ${ITERATIONS} mutations per image of ISO9660, FAT12/16/32, an MBR and a GPT disk, no crash, no hang`, {
    timeout: Math.max(30 * 60_000, ITERATIONS * 6 * 20),
  }, async () => {
    const worker = new Worker(fileURLToPath(import.meta.url), {
      workerData: { iterations: ITERATIONS },
      resourceLimits: { maxOldGenerationSizeMb: 512 },
    });
    let last: { image?: string; i?: number; seed?: number } = {};
    const result = await new Promise<{ kind: string; [k: string]: unknown }>((resolve) => {
      let timer = setTimeout(onHang, HANG_MS);
      function onHang() {
        void worker.terminate();
        resolve({ ...last, kind: 'hang' });
      }
      worker.on('message', (m: { kind: string; image?: string; i?: number; seed?: number }) => {
        clearTimeout(timer);
        if (m.kind === 'start') {
          last = m;
          timer = setTimeout(onHang, HANG_MS);
          return;
        }
        void worker.terminate();
        resolve(m);
      });
      worker.on('error', (err) => {
        clearTimeout(timer);
        resolve({ ...last, kind: 'crash', error: err.stack ?? err.message });
      });
    });
    assert.equal(result.kind, 'done', `fuzz failed: ${JSON.stringify(result, null, 2)}`);
  });
}
