// A first boot killed at seeded-random moments (kiln alone, or the whole namespace as a power cut would), then
// booted again, ends done with nothing corrupt, nothing done twice and no lock blocking (issue 23; hundreds of
// kill points with `npm run soak -- crash`). Each failure names its seed, mode and moment, to be replayed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crashCampaign } from '../helpers/crash-boot';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const KILLS = 20;
const SEED = 20261126;

test(`a first boot killed at ${KILLS} moments boots again to done, with nothing corrupt or done twice`, {
  timeout: 900_000,
}, async (t) => {
  const binary = builtBinary('kiln-linux-x64');
  if (
    !need(
      t,
      isRoot() && hasCommand('debootstrap') && hasCommand('unshare') && binary !== undefined,
      'needs root, debootstrap (the cached Debian rootfs), unshare and dist/kiln-linux-x64',
    )
  )
    return;
  const r = await crashCampaign(tempDir(t, 'kiln-crash-'), binary as string, KILLS, SEED);
  t.diagnostic(
    `an undisturbed first boot took ${r.wholeMs} ms; ${r.landed} of ${KILLS} kills landed before the boot ended; ${r.staging} staging files of killed writes were left beside their targets`,
  );
  assert.deepEqual(r.failures, []);
  assert.ok(r.landed >= KILLS / 2, `only ${r.landed} of ${KILLS} kills landed: the kill points do not cover the boot`);
});
