// `npm run soak -- crash [--kills N] [--seed S]`: the crash-consistency campaign of
// test/reliability/crash-consistency.test.ts at hundreds of kill points (default 300). Needs root, the cached
// Debian rootfs and dist/kiln-linux-x64 (`npm run build`). Exit 1 when any kill point left a problem.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import minimist from 'minimist';
import { crashCampaign } from '../helpers/crash-boot';
import { builtBinary } from '../helpers/repo';
import { removeTree } from '../helpers/overlay-copy';

const argv = minimist(process.argv.slice(2), { string: ['kills', 'seed'] });
const kills = Number(argv.kills ?? 300);
const seed = Number(argv.seed ?? Date.now() % 2 ** 31);
const binary = builtBinary('kiln-linux-x64');
if (!binary || process.getuid?.() !== 0 || !Number.isInteger(kills) || kills < 1) {
  console.error('crash soak: needs root, dist/kiln-linux-x64 (npm run build) and --kills N ≥ 1');
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'kiln-crash-soak-'));
const started = Date.now();
try {
  const r = await crashCampaign(work, binary, kills, seed, (done) => {
    if (done % 10 === 0 || done === kills) process.stdout.write(`  ${done}/${kills} kill points\n`);
  });
  console.log(
    `seed ${seed}: ${kills} kill points (${r.landed} landed before the boot ended; half kiln alone, half the whole namespace) over a ${r.wholeMs} ms first boot, in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  console.log(
    `${r.failures.length} with problems; ${r.staging} staging files of killed writes left beside their targets`,
  );
  for (const f of r.failures) console.log(f);
  process.exitCode = r.failures.length ? 1 : 0;
} finally {
  removeTree(work);
}
