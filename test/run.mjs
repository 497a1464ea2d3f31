// `npm test`: type-checks, bundles every test/**/*.test.ts with esbuild (the one way tests are built), and
// runs them with node's test runner. Arguments filter test files by substring: `npm test -- devices/`.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { hostTarget, targetPlugin } from '../build.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(repo, '.build', 'test');
const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const skipTypecheck = process.argv.includes('--no-typecheck');

function findTests(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (name === 'fixtures' || name === 'node_modules') continue;
    if (statSync(full).isDirectory()) found.push(...findTests(full));
    else if (name.endsWith('.test.ts')) found.push(full);
  }
  return found;
}

if (!skipTypecheck) {
  console.log('# typecheck (tsc --noEmit)');
  execFileSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', join(repo, 'tsconfig.json')], { stdio: 'inherit' });
}

const tests = findTests(join(repo, 'test')).filter((f) => filters.length === 0 || filters.some((p) => relative(repo, f).includes(p)));
if (tests.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}
rmSync(outDir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: tests,
  outdir: outDir,
  outbase: join(repo, 'test'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'inline',
  packages: 'external',
  plugins: [targetPlugin(hostTarget(), { embedAddon: false })],
  logLevel: 'warning',
});
const built = tests.map((t) => join(outDir, relative(join(repo, 'test'), t)).replace(/\.ts$/, '.mjs'));
const result = spawnSync(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=2', ...built], {
  stdio: 'inherit',
  env: { ...process.env, KILN_REPO: repo },
});
process.exit(result.status ?? 1);
