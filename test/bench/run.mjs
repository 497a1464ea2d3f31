// `npm run bench`: bundles every test/bench/**/*.bench.ts (test/bundle.mjs) and runs each in turn; each
// prints its own table. Speed and memory targets live here, never in timed tests. Arguments filter by substring.
import { spawnSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { bundleTests, findFiles, repo } from '../bundle.mjs';

const benches = findFiles(join(repo, 'test', 'bench'), '.bench.ts', process.argv.slice(2));
if (benches.length === 0) {
  console.error('no benchmarks found');
  process.exit(1);
}
const built = await bundleTests(benches, join(repo, '.build', 'bench'));
let failed = 0;
for (const [i, bench] of benches.entries()) {
  console.log(`\n## ${relative(repo, bench)}`);
  const r = spawnSync(process.execPath, ['--expose-gc', built[i]], {
    stdio: 'inherit',
    env: { ...process.env, KILN_REPO: repo },
  });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
