// `npm run soak -- NAME [args]`: long fault and load runs (benchmarks, not tests: `npm test` stays within CI's
// limit). Bundles test/soak/NAME.soak.ts (test/bundle.mjs) and runs it with the remaining arguments.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { bundleTests, findFiles, repo } from '../bundle.mjs';

const [name, ...args] = process.argv.slice(2);
const all = findFiles(join(repo, 'test', 'soak'), '.soak.ts', []);
const soaks = name ? all.filter((f) => f.endsWith(`/${name}.soak.ts`)) : [];
if (soaks.length !== 1) {
  console.error(
    `usage: npm run soak -- NAME [args]; NAME is one of: ${all.map((f) => f.replace(/^.*\//, '').replace(/\.soak\.ts$/, '')).join(', ')}`,
  );
  process.exit(2);
}
// Each soak bundles into a folder of its own, so that two soaks can run at once.
const built = await bundleTests(soaks, join(repo, '.build', 'soak', name));
const r = spawnSync(process.execPath, [built[0], ...args], {
  stdio: 'inherit',
  env: { ...process.env, KILN_REPO: repo },
});
process.exit(r.status ?? 1);
