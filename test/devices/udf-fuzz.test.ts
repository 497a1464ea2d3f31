// Fuzz for the UDF reader: seeded mutations of a real UDF image (genisoimage -udf, ISO9660 side removed), half of them
// with the descriptor tag checksums fixed up so the damage reaches past the tag checks; every parse ends in bounded
// time with a result or a KilnError. KILN_FUZZ_ITERATIONS raises the count.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BufferBlockReader } from '../../src/devices/block-reader';
import type { FileTree } from '../../src/devices/filesystem-finder';
import { probe } from '../../src/devices/probe';
import { openUdf } from '../../src/devices/udf';
import { KilnError } from '../../src/util/errors';
import { hasCommand, need } from '../helpers/requirements';
import { seededRandom } from '../helpers/seeded-random';
import { tempDir } from '../helpers/temp';
import { makeUdfImage } from './udf-images';

const ITERATIONS = Number(process.env.KILN_FUZZ_ITERATIONS ?? 250);
const PARSE_BUDGET_MS = 3000;
const INTERESTING = [0, 1, 2, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0xffffffff, 0x10000, 2048, 512, 256, 257, 261, 266];

/**
 * Sets the checksum byte of every descriptor tag (block-aligned ones, and File Identifier Descriptors anywhere on a
 * 4-byte boundary).
 */
function fixTagChecksums(b: Buffer): void {
  for (let o = 0; o + 16 <= b.length; o += 4) {
    const id = b.readUInt16LE(o);
    const version = b.readUInt16LE(o + 2);
    const aligned = o % 512 === 0;
    if (!((aligned && id >= 1 && id <= 266) || id === 257) || (version !== 2 && version !== 3)) continue;
    let sum = 0;
    for (let i = 0; i < 16; i++) if (i !== 4) sum = (sum + (b[o + i] as number)) & 0xff;
    b[o + 4] = sum;
  }
}

function mutate(image: Buffer, r: () => number): Buffer {
  const out = Buffer.from(image);
  const n = 1 + Math.floor(r() * 8);
  // Most of what matters sits in the first blocks after the anchor (descriptors, file entries, directories).
  const hot = Math.min(out.length - 4, 2048 * 320);
  for (let i = 0; i < n; i++) {
    const at = 16 * 2048 + Math.floor(r() * (hot - 16 * 2048));
    const kind = r();
    if (kind < 0.5) out[at] = Math.floor(r() * 256);
    else if (kind < 0.8) out.writeUInt32LE(INTERESTING[Math.floor(r() * INTERESTING.length)] as number, at & ~3);
    else out.writeUInt16LE((INTERESTING[Math.floor(r() * INTERESTING.length)] as number) & 0xffff, at & ~1);
  }
  if (r() < 0.5) fixTagChecksums(out);
  return out;
}

async function exercise(tree: FileTree): Promise<void> {
  let budget = 500;
  const walk = async (path: string, depth: number): Promise<void> => {
    for (const e of (await tree.list(path)) ?? []) {
      if (--budget < 0 || depth > 6) return;
      const p = `${path}/${e.name}`;
      if (e.type === 'directory') await walk(p, depth + 1);
      else await tree.readFile(p);
    }
  };
  await walk('', 0);
  await tree.readFile('ovf-env.xml');
}

test(`UDF fuzz: ${ITERATIONS} mutations of a genisoimage -udf image, no crash, no hang`, {
  timeout: Math.max(10 * 60_000, ITERATIONS * 20),
}, async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is not installed')) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  mkdirSync(join(src, 'a/b/c'), { recursive: true });
  writeFileSync(join(src, 'ovf-env.xml'), '<Environment/>\n');
  writeFileSync(join(src, 'a/b/c/deep.txt'), 'deep\n');
  writeFileSync(join(src, 'a/big.bin'), Buffer.alloc(70_000, 7));
  for (let i = 0; i < 40; i++) writeFileSync(join(src, 'a', `file-with-a-longer-name-${i}.txt`), `${i}\n`);
  const path = join(dir, 'fuzz.udf');
  makeUdfImage(src, path, 'rd_rdfe_fuzz');
  const image = readFileSync(path);
  await exercise((await openUdf(new BufferBlockReader('clean.udf', image))).tree);
  for (let i = 0; i < ITERATIONS; i++) {
    const seed = (i + 1) * 2654435761;
    const mutated = mutate(image, seededRandom(seed, 0x9e3779b9));
    const t0 = performance.now();
    try {
      const reader = new BufferBlockReader('fuzz.udf', mutated);
      await probe(reader);
      await exercise((await openUdf(reader)).tree);
    } catch (err) {
      if (!(err instanceof KilnError))
        assert.fail(
          `mutation ${i} (seed ${seed}) crashed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
        );
    }
    const ms = performance.now() - t0;
    assert.ok(ms < PARSE_BUDGET_MS, `mutation ${i} (seed ${seed}) took ${Math.round(ms)} ms`);
  }
});
