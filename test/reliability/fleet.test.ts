// A fleet of first boots against one mock metadata service in a private network namespace (issue 23): every
// boot gets its own instance id, within its budget and a bounded number of requests, through a 429/503 storm
// and slow answers. 100 boots with `npm run soak -- fleet`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fleetProblems, fleetSummary, runFleet, type FleetKind } from '../helpers/fleet';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const BOOTS = 30;
const STORM = ['status,value=429,times=60', 'status,value=503,times=60', 'delay,value=1500,times=30'];

for (const kind of ['ec2', 'openstack'] as FleetKind[]) {
  test(`${BOOTS} ${kind} boots at once through a 429/503 storm: each its own instance id, in budget, bounded requests`, {
    timeout: 300_000,
  }, async (t) => {
    const binary = builtBinary('kiln-linux-x64');
    if (
      !need(
        t,
        isRoot() && hasCommand('ip') && binary !== undefined,
        'needs root (a private network namespace), iproute2 and dist/kiln-linux-x64',
      )
    )
      return;
    const options = {
      binary: binary as string,
      work: tempDir(t, 'kiln-fleet-'),
      boots: BOOTS,
      kind,
      misbehave: STORM,
      budgetS: 150,
    };
    const r = await runFleet(options);
    t.diagnostic(fleetSummary(r));
    assert.deepEqual(fleetProblems(r, options, 80), []);
    assert.ok(
      r.outcomes.some((b) => b.refused > 0),
      'the storm reached the boots',
    );
  });
}
