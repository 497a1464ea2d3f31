// Network datasource parity: Debian 13's cloud-init 25.1 (PARITY_SUITE) and the built kiln run all four stages on the
// same machine (fake DMI, one NIC) in front of the same mock metadata service and DHCP server, in network namespaces of
// the test's own; instance-data.json, the users, keys, hostname and the rendered network must match but for the
// annotated allow-list. init-local's ephemeral DHCP is exercised on both sides (the lease is the only way to reach
// 169.254.169.254 before the network is up).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { BUSYBOX } from '../helpers/netns-lab';
import { builtBinary, REPO } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { AllowListUse } from './allow-list-use';
import { compareTrees, formatDifferences } from './compare-trees';
import { NET_ALLOWED_DIFFERENCES } from './net-allowed-differences';
import { loadNetCases } from './net-cases';
import { AFTER_INIT_LOCAL } from './net-view';
import { runNetCaseOnSide } from './run-net-case';
import { removeTree } from '../helpers/overlay-copy';

/** KILN_PARITY_NET_CASES=ec2,openstack runs only cases whose names contain one of those parts (local iteration). */
function selectedCases() {
  const only = (process.env.KILN_PARITY_NET_CASES ?? '').split(',').filter(Boolean);
  return loadNetCases().filter((c) => only.length === 0 || only.some((o) => c.name.includes(o)));
}

/** KILN_PARITY_KEEP=1 keeps each case's roots and lab files in .build/parity/net-work/<case> to look into. */
function keptWorkDir(name: string): string | undefined {
  if (!process.env.KILN_PARITY_KEEP) return undefined;
  const dir = join(REPO, '.build', 'parity', 'net-work', name);
  removeTree(dir);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function labReady(): boolean {
  return (
    isRoot() &&
    hasCommand('unshare') &&
    hasCommand('chroot') &&
    hasCommand('debootstrap') &&
    hasCommand('/usr/bin/time') &&
    hasCommand('ip') &&
    existsSync(BUSYBOX)
  );
}

const REASON =
  'needs root, unshare, chroot, debootstrap, GNU time, iproute2 and busybox (udhcpd) for the Debian rootfs sandboxes in network namespaces';

const use = new AllowListUse();

test('network parity: cloud-init 25.1 and kiln agree on every network source case', {
  timeout: 1_800_000,
}, async (t) => {
  if (!need(t, labReady(), REASON)) return;
  const kiln = builtBinary('kiln-linux-x64');
  if (!need(t, kiln !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
  const reportDir = join(REPO, '.build', 'parity');
  mkdirSync(reportDir, { recursive: true });
  for (const c of selectedCases()) {
    await t.test(c.name, async (tc) => {
      const work = keptWorkDir(c.name) ?? tempDir(tc, 'kiln-net-parity-');
      const ci = await runNetCaseOnSide(c, 'cloud-init', work, kiln as string);
      const stderrOf = (r: typeof ci) =>
        r.stages.map((s) => `${s.stage} (${s.code}): ${s.stderr.trim().slice(-400)}`).join('\n');
      // The case itself must hold under cloud-init: found in its stage (init-local unless the case says init), its
      // expectations met.
      const found = `/run/cloud-init/instance-data.json${c.foundIn === 'init-local' ? AFTER_INIT_LOCAL : ''}`;
      assert.ok(
        ci.view.has(found),
        `cloud-init 25.1 found no source in ${c.foundIn} on ${c.name}: fix the case\n${stderrOf(ci)}\n${ci.server}`,
      );
      assert.deepEqual(
        ci.unmet,
        [],
        `the case's own expectations fail under cloud-init itself: fix the case ${c.name}`,
      );
      const k = await runNetCaseOnSide(c, { kilnBinary: kiln as string }, work, kiln as string);
      // Where a case's time goes (issue 29 asked what the cases wait on): each side's stages, in seconds.
      const times = (r: typeof ci) => r.stages.map((s) => `${s.stage} ${(s.wallMs / 1000).toFixed(1)}`).join(', ');
      tc.diagnostic(`cloud-init: ${times(ci)}; kiln: ${times(k)}`);
      assert.deepEqual(
        k.stages.filter((s) => s.code === 127 || s.code < 0).map((s) => s.stage),
        [],
        `kiln stages could not run at all:\n${stderrOf(k)}`,
      );
      const diffs = compareTrees(ci.view, k.view, NET_ALLOWED_DIFFERENCES, c.name);
      use.record(c.name, diffs);
      writeFileSync(join(reportDir, `net-${c.name}.txt`), `${formatDifferences(c.name, diffs)}\n`);
      const left = diffs.filter((d) => !d.allowedBy);
      assert.deepEqual(k.unmet, [], `kiln misses the case's expectations (${c.notes})\n${stderrOf(k)}`);
      assert.equal(
        left.length,
        0,
        `unexplained differences (full list in .build/parity/net-${c.name}.txt):\n${formatDifferences(c.name, left)}\nkiln stages:\n${stderrOf(k)}`,
      );
    });
  }
});

test('network allow-list hygiene: every entry (each kind it lists, its normaliser) excused a difference above', (t) => {
  if (!need(t, labReady(), REASON)) return;
  if (
    !need(t, builtBinary('kiln-linux-x64') !== undefined, 'dist/kiln-linux-x64 is not built, so no case was compared')
  )
    return;
  if (
    !need(
      t,
      !process.env.KILN_PARITY_NET_CASES,
      'KILN_PARITY_NET_CASES runs only some cases; entries for the others would look unused',
    )
  )
    return;
  const missing = loadNetCases()
    .map((c) => c.name)
    .filter((name) => !use.seeds.has(name));
  assert.deepEqual(
    missing,
    [],
    'cases whose views were never compared (see the failures above): the allow-list cannot be checked without them',
  );
  const unused = use.unused(NET_ALLOWED_DIFFERENCES);
  assert.deepEqual(
    unused,
    [],
    `allow-list entries no longer needed, or wider than needed: narrow or remove them in test/parity/net-allowed-differences.ts\n${unused.join('\n')}`,
  );
});
