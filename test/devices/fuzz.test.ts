// Fuzz: seeded mutations of ISO9660, FAT12/16/32 and partitioned images; every parse ends in bounded time with
// either a result or a KilnError, never a crash or a hang. KILN_FUZZ_ITERATIONS raises the per-image budget.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { BufferBlockReader } from '../../src/devices/block-reader';
import { writeFat } from '../../src/devices/fat-writer';
import type { FileTree } from '../../src/devices/filesystem-finder';
import { imageCandidates } from '../../src/devices/image-finder';
import { writeIso9660 } from '../../src/devices/iso9660-writer';
import { openFilesystem, probe } from '../../src/devices/probe';
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
  ];
}

const INTERESTING = [0, 1, 2, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0xffffffff, 0x0ffffff7, 0x0ffffff8, 0x10000, 2048, 512];

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

async function parseOnce(image: Buffer): Promise<void> {
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
    await parseOnce(c.image); // the unmutated image must parse cleanly
    for (let i = 0; i < iterations; i++) {
      const seed = (i + 1) * 2654435761 + c.name.length;
      parentPort?.postMessage({ kind: 'start', image: c.name, i, seed });
      const image = mutate(c.image, c.hot, seededRandom(seed, 0x9e3779b9));
      const t0 = performance.now();
      try {
        await parseOnce(image);
      } catch (err) {
        parentPort?.postMessage({ kind: 'crash', image: c.name, i, seed, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
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
  test(`fuzz: ${ITERATIONS} mutations per image of ISO9660, FAT12/16/32 and an MBR disk, no crash, no hang`, { timeout: 30 * 60_000 }, async () => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { iterations: ITERATIONS }, resourceLimits: { maxOldGenerationSizeMb: 512 } });
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
