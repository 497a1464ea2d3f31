// `analyze` on cloud-init's own log: Debian's cloud-init 22.4 boots a seed, then its `analyze show|blame|dump` and
// kiln's read the same /var/log/cloud-init.log; they must print the same.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/main';
import { removeTree } from '../helpers/overlay-copy';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { runCaseOnSide } from './run-case';
import { runStage } from './sandbox-stages';
import { loadSeeds } from './seeds';

async function kilnAnalyze(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main({
    argv: ['analyze', ...args],
    argv0: '/usr/bin/cloud-init',
    env: {},
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
  });
  return { code, out, err };
}

test("analyze show, blame and dump read cloud-init 22.4's own cloud-init.log as cloud-init's analyze does", {
  timeout: 900_000,
}, async (t) => {
  if (
    !need(
      t,
      isRoot() &&
        hasCommand('unshare') &&
        hasCommand('chroot') &&
        hasCommand('debootstrap') &&
        hasCommand('/usr/bin/time'),
      'needs root, unshare, chroot, debootstrap and GNU time for the Debian rootfs sandbox',
    )
  )
    return;
  const seed = loadSeeds().find((s) => s.name.startsWith('04-'));
  assert.ok(seed, 'seed 04 (users and groups: a boot with several modules)');
  const work = tempDir(t, 'kiln-analyze-');
  try {
    const booted = runCaseOnSide(seed, 'cloud-init', work);
    const log = join(booted.root, 'var/log/cloud-init.log');
    for (const report of ['show', 'blame', 'dump']) {
      const oracle = runStage(booted.root, {
        name: `analyze ${report}`,
        args: ['analyze', report, '-i', '/var/log/cloud-init.log'],
      });
      assert.equal(oracle.code, 0, oracle.stderr);
      const kiln = await kilnAnalyze([report, '-i', log]);
      assert.equal(kiln.code, 0, kiln.err);
      if (report === 'dump') {
        // The same events; cloud-init prints them with json.dumps(indent=1, sort_keys=True).
        assert.deepEqual(JSON.parse(kiln.out), JSON.parse(oracle.stdout ?? ''));
      } else {
        assert.ok(
          /Boot Record/.test(oracle.stdout ?? ''),
          `cloud-init's analyze ${report} read no boot: ${oracle.stdout}`,
        );
        assert.equal(kiln.out, oracle.stdout, `analyze ${report}`);
      }
    }
  } finally {
    removeTree(work);
  }
});
