// `npm run bench`: bundles every test/bench/**/*.bench.ts with esbuild and runs each in turn; each prints
// its own table. Speed and memory targets live here, never in timed tests. Arguments filter by substring.
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { hostTarget, targetPlugin } from '../../build.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const outDir = join(repo, '.build', 'bench');
const filters = process.argv.slice(2);

function findBenches(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) found.push(...findBenches(full));
    else if (name.endsWith('.bench.ts')) found.push(full);
  }
  return found;
}

const benches = findBenches(join(repo, 'test', 'bench')).filter((f) => filters.length === 0 || filters.some((p) => relative(repo, f).includes(p)));
if (benches.length === 0) {
  console.error('no benchmarks found');
  process.exit(1);
}
rmSync(outDir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: benches,
  outdir: outDir,
  outbase: join(repo, 'test'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  plugins: [targetPlugin(hostTarget(), { embedAddon: false })],
  logLevel: 'warning',
});
let failed = 0;
for (const bench of benches) {
  const built = join(outDir, relative(join(repo, 'test'), bench)).replace(/\.ts$/, '.mjs');
  console.log(`\n## ${relative(repo, bench)}`);
  const r = spawnSync(process.execPath, ['--expose-gc', built], { stdio: 'inherit', env: { ...process.env, KILN_REPO: repo } });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
