// `npm run soak -- fleet [--boots N] [--kind ec2|openstack]`: N (default 100) first boots at once against one
// mock metadata service in a private network namespace, first undisturbed, then through a 429/503 storm with
// slow answers (test/helpers/fleet.ts). Needs root and dist/kiln-linux-x64. Exit 1 when any boot failed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import minimist from 'minimist';
import { fleetProblems, fleetSummary, runFleet, type FleetKind } from '../helpers/fleet';
import { builtBinary } from '../helpers/repo';
import { removeTree } from '../helpers/overlay-copy';

const argv = minimist(process.argv.slice(2), { string: ['boots', 'kind'] });
const boots = Number(argv.boots ?? 100);
const kinds: FleetKind[] = argv.kind ? [argv.kind as FleetKind] : ['ec2', 'openstack'];
const binary = builtBinary('kiln-linux-x64');
if (
  !binary ||
  process.getuid?.() !== 0 ||
  !Number.isInteger(boots) ||
  boots < 1 ||
  boots > 250 ||
  kinds.some((k) => k !== 'ec2' && k !== 'openstack')
) {
  console.error('fleet soak: needs root, dist/kiln-linux-x64 (npm run build), --boots 1..250 and --kind ec2|openstack');
  process.exit(2);
}
const storms: Array<[string, string[]]> = [
  ['undisturbed', []],
  [
    '429/503 storm and slow answers',
    [`status,value=429,times=${boots * 3}`, `status,value=503,times=${boots * 3}`, `delay,value=2000,times=${boots}`],
  ],
];
let failed = 0;
for (const kind of kinds) {
  for (const [label, misbehave] of storms) {
    const work = mkdtempSync(join(tmpdir(), 'kiln-fleet-soak-'));
    try {
      const options = { binary, work, boots, kind, misbehave, budgetS: 300 };
      const r = await runFleet(options);
      const problems = fleetProblems(r, options, 120);
      console.log(`${kind}, ${label}: ${fleetSummary(r)}`);
      for (const p of problems) console.log(`  ${p}`);
      if (problems.length) failed++;
    } finally {
      removeTree(work);
    }
  }
}
process.exitCode = failed ? 1 : 0;
