// The built binary's `cloud-init devel net-convert` writes the corpus' expected files (the single-executable build).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { builtBinary } from '../helpers/repo';
import { need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { distroFor, loadCases } from './fixture-cases';

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}

test('dist/kiln-linux-x64 devel net-convert matches the fixtures (netplan and eni for every case, all renderers for one)', (t) => {
  const bin = builtBinary('kiln-linux-x64');
  if (!need(t, bin !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
  const dir = tempDir(t);
  for (const c of loadCases()) {
    const renderers =
      c.name === 'v1-vlan-on-bond' ? c.renderers : c.renderers.filter((r) => r === 'netplan' || r === 'eni');
    for (const renderer of renderers) {
      const out = join(dir, c.name, renderer);
      const args = [
        'devel',
        'net-convert',
        '-p',
        c.input,
        '-k',
        c.cliKind,
        '-d',
        out,
        '-D',
        distroFor(c, renderer),
        '-O',
        renderer,
        ...Object.entries(c.macs).flatMap(([n, m]) => ['-m', `${n},${m}`]),
      ];
      const r = spawnSync(bin as string, args, { encoding: 'utf8', env: { ...process.env, KILN_FACE: 'cloud-init' } });
      assert.equal(r.status, 0, `${c.name}/${renderer}: ${r.stderr}`);
      const want = c.expected(renderer);
      const got = new Map(walk(out).map((f) => [`/${relative(out, f)}`, readFileSync(f, 'utf8')]));
      assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), `${c.name}/${renderer} files`);
      for (const [p, text] of want) assert.equal(got.get(p), text, `${c.name}/${renderer} ${p}`);
    }
  }
});
