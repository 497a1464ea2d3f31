// The parity harness: Debian's real cloud-init 22.4 and the built kiln binary run the same seeds in two copies
// of the same Debian rootfs; the trees they leave must match, but for the annotated allow-list.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { builtBinary, REPO } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { ALLOWED_DIFFERENCES } from './allowed-differences';
import { compareTrees, formatDifferences } from './compare-trees';
import { runCaseOnSide } from './run-case';
import { loadSeeds } from './seeds';

/** KILN_PARITY_SEEDS=07,19 runs only seeds whose names contain one of those parts (for local iteration). */
function selectedSeeds() {
  const only = (process.env.KILN_PARITY_SEEDS ?? '').split(',').filter(Boolean);
  return loadSeeds().filter((s) => only.length === 0 || only.some((o) => s.name.includes(o)));
}

function sandboxReady(): boolean {
  return isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap') && hasCommand('/usr/bin/time');
}

const REASON = 'needs root, unshare, chroot, debootstrap and GNU time (/usr/bin/time) for the Debian rootfs sandboxes';

test('oracle check: two runs of cloud-init itself differ only by what the allow-list explains', { timeout: 600_000 }, (t) => {
  if (!need(t, sandboxReady(), REASON)) return;
  for (const c of loadSeeds().filter((s) => /^(04|20)-/.test(s.name))) {
    const work = tempDir(t, 'kiln-parity-');
    const a = runCaseOnSide(c, 'cloud-init', join(work, 'a'));
    const b = runCaseOnSide(c, 'cloud-init', join(work, 'b'));
    const left = compareTrees(a.tree, b.tree, ALLOWED_DIFFERENCES, c.name).filter((d) => !d.allowedBy);
    assert.equal(left.length, 0, `cloud-init vs cloud-init on ${c.name}:\n${formatDifferences(c.name, left)}`);
    rmSync(work, { recursive: true, force: true });
  }
});

test('parity: cloud-init 22.4 and kiln leave the same trees on every seed', { timeout: 3_600_000 }, async (t) => {
  if (!need(t, sandboxReady(), REASON)) return;
  const kiln = builtBinary('kiln-linux-x64');
  if (!need(t, kiln !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
  const reportDir = join(REPO, '.build', 'parity');
  mkdirSync(reportDir, { recursive: true });
  for (const c of selectedSeeds()) {
    await t.test(c.name, () => {
      const work = tempDir(t, 'kiln-parity-');
      try {
        const ci = runCaseOnSide(c, 'cloud-init', work);
        assert.deepEqual(ci.unmet, [], `the seed's own expectations fail under cloud-init itself: fix the seed ${c.name}`);
        const k = runCaseOnSide(c, { kilnBinary: kiln as string }, work);
        // Say it plainly when kiln found no instance at all: every difference below would follow from that.
        assert.ok(k.tree.has('/var/lib/cloud/data/instance-id'), `kiln found no instance in the NoCloud seed of ${c.name}: ${k.boots.flat().map((s) => s.stderr.trim()).filter(Boolean).join('\n').slice(-600)}`);
        const diffs = compareTrees(ci.tree, k.tree, ALLOWED_DIFFERENCES, c.name);
        writeFileSync(join(reportDir, `${c.name}.txt`), `${formatDifferences(c.name, diffs)}\n`);
        const stages = k.boots.flat().filter((s) => s.code === 127 || s.code < 0);
        assert.deepEqual(stages.map((s) => `${s.stage}: ${s.stderr.trim().slice(-300)}`), [], 'kiln stages could not run at all');
        const left = diffs.filter((d) => !d.allowedBy);
        assert.deepEqual(k.unmet, [], `kiln misses the seed's expectations (${c.notes})`);
        assert.equal(left.length, 0, `unexplained differences (full list in .build/parity/${c.name}.txt):\n${formatDifferences(c.name, left)}`);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    });
  }
});
