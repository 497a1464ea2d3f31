// Test helpers for device tests: run real image tools, make source trees, compare trees byte for byte.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FileTree } from '../../src/devices/filesystem-finder';
import { xorshift32 } from '../helpers/seeded-random';

export function run(cmd: string, args: string[], opts: { input?: string; cwd?: string } = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input: opts.input, cwd: opts.cwd, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** A deterministic pseudo-random byte string (so failures reproduce). */
export function bytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  const next = xorshift32(seed);
  for (let i = 0; i < n; i++) b[i] = next() & 0xff;
  return b;
}

/** A seed-like source folder: config-drive and NoCloud files, nesting, long and odd names, a large file. */
export function makeSourceTree(dir: string): void {
  const files: Record<string, Buffer> = {
    'meta-data': Buffer.from('instance-id: iid-test\nlocal-hostname: kiln\n'),
    'user-data': Buffer.from('#cloud-config\nhostname: kiln\n'),
    'openstack/latest/meta_data.json': Buffer.from(
      '{"uuid": "83679162-1378-4288-a2d4-70e13ec132aa", "hostname": "kiln"}',
    ),
    'openstack/latest/network_data.json': Buffer.from('{"links": [], "networks": [], "services": []}'),
    'openstack/2012-08-10/meta_data.json': Buffer.from('{"uuid": "old"}'),
    'ec2/latest/meta-data.json': Buffer.from('{}'),
    'deep/one/two/three/four/a file with spaces and a rather long name.txt': Buffer.from('spaces\n'),
    'big/random.bin': bytes(300_000, 7),
    'big/exactly-2048.bin': bytes(2048, 9),
    'empty-file': Buffer.alloc(0),
    'UPPER.TXT': Buffer.from('upper\n'),
  };
  for (const [p, data] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), data);
  }
}

/** Every file under DIR, relative '/'-separated path → bytes. */
export function readSourceTree(dir: string, prefix = ''): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    const rel = prefix ? `${prefix}/${name}` : name;
    if (statSync(full).isDirectory()) for (const [k, v] of readSourceTree(full, rel)) out.set(k, v);
    else out.set(rel, readFileSync(full));
  }
  return out;
}

/** Every file in TREE, by walking list() from the root. */
export async function readImageTree(tree: FileTree, path = ''): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const entries = await tree.list(path || '/');
  assert.ok(entries, `cannot list '${path || '/'}'`);
  for (const e of entries) {
    const rel = path ? `${path}/${e.name}` : e.name;
    if (e.type === 'directory') for (const [k, v] of await readImageTree(tree, rel)) out.set(k, v);
    else {
      const data = await tree.readFile(rel);
      assert.ok(data, `cannot read '${rel}'`);
      assert.equal(data.length, e.size, `size of '${rel}'`);
      out.set(rel, Buffer.from(data));
    }
  }
  return out;
}

/** Asserts that the image tree holds exactly the source files, byte for byte. */
export async function assertSameTree(tree: FileTree, source: Map<string, Buffer>, what: string): Promise<void> {
  const got = await readImageTree(tree);
  assert.deepEqual([...got.keys()].sort(), [...source.keys()].sort(), `${what}: file names`);
  for (const [k, v] of source) assert.ok(Buffer.compare(got.get(k) as Buffer, v) === 0, `${what}: content of '${k}'`);
}
