// `npm test`: type-checks, bundles every test/**/*.test.ts with esbuild (test/bundle.mjs) and runs them with
// node's test runner. Arguments filter test files by substring: `npm test -- devices/`.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { bundleTests, findFiles, repo } from './bundle.mjs';

/** koffi's addon for this host, as npm installed it with koffi. */
function hostKoffiAddon() {
  const os = process.platform;
  return join(repo, 'node_modules', '@koromix', `koffi-${os}-${process.arch}`, `${os}_${process.arch}`, 'koffi.node');
}

const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));

if (!process.argv.includes('--no-typecheck')) {
  console.log('# typecheck (tsc --noEmit)');
  execFileSync(
    process.execPath,
    [join(repo, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', join(repo, 'tsconfig.json')],
    { stdio: 'inherit' },
  );
}

const tests = findFiles(join(repo, 'test'), '.test.ts', filters);
if (tests.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}
const built = await bundleTests(tests, join(repo, '.build', 'test'));
const result = spawnSync(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=2', ...built], {
  stdio: 'inherit',
  // Commands start with posix_spawn in kiln's tests as in its binaries (posix-spawn.ts); the binaries carry koffi.
  env: { ...process.env, KILN_REPO: repo, KILN_KOFFI_ADDON: process.env.KILN_KOFFI_ADDON ?? hostKoffiAddon() },
});
process.exit(result.status ?? 1);
