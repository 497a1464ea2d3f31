// LXD parity: Debian 13's cloud-init 25.1 (PARITY_SUITE) and the built kiln read the same devlxd mock on
// ROOT/dev/lxd/sock in two copies of the trixie rootfs; instance-data, the rendered network, the hostname and the
// modules' files must match.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyRootfs } from '../helpers/debian-rootfs';
import { builtBinary, FIXTURES, REPO } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { ALLOWED_DIFFERENCES } from './allowed-differences';
import { compareTrees, formatDifferences, type AllowedDifference } from './compare-trees';
import { installKiln, runAllStages, type StageRun } from './sandbox-stages';
import { PARITY_SUITE } from './run-case';
import { snapshotTree, type Tree } from './tree-snapshot';

const REASON = 'needs root, unshare, chroot, debootstrap and GNU time (/usr/bin/time) for the Debian rootfs sandboxes';

/**
 * status.json without the copies of init-local's recoverable errors that cloud-init 25.1 leaves under the later
 * stages: for each level init-local recorded, its messages are taken out of the other stages' lists of that level
 * (a stage that logged at that level itself replaced the copy; one that did not still holds it).
 */
function dropInitLocalCopies(text: string): string {
  try {
    const doc = JSON.parse(text) as {
      v1?: Record<string, { recoverable_errors?: Record<string, string[]> } | unknown>;
    };
    const stages = doc.v1 ?? {};
    const local = (stages['init-local'] as { recoverable_errors?: Record<string, string[]> } | undefined)
      ?.recoverable_errors;
    if (!local || Array.isArray(local)) return text;
    for (const [name, rec] of Object.entries(stages)) {
      if (name === 'init-local' || !rec || typeof rec !== 'object') continue;
      const errors = (rec as { recoverable_errors?: Record<string, string[]> }).recoverable_errors;
      if (!errors || Array.isArray(errors)) continue;
      for (const [level, messages] of Object.entries(local)) {
        const kept = (errors[level] ?? []).filter((m) => !messages.includes(m));
        if (kept.length > 0) errors[level] = kept;
        else delete errors[level];
      }
    }
    return JSON.stringify(doc, null, 1);
  } catch {
    return text;
  }
}

/**
 * The difference LXD adds to the common allow-list (applied before it, as dropInitLocalCopies needs the messages
 * the common status.json entry reduces to levels). 22.4's entries for cloud-init.user-data and vendor-data in
 * instance-data.json are gone: 25.1 redacts them as kiln does.
 */
const LXD_ALLOWED: AllowedDifference[] = [
  {
    path: /^\/var\/lib\/cloud\/data\/status\.json$/,
    kinds: [],
    normalize: dropInitLocalCopies,
    reason:
      "a cloud-init 25.1 bug: status_wrapper fills a new status.json with shallow copies of one null record, so the four stages share one recoverable_errors dict, and init-local's warning (LXD's 'Ignoring LXD config user.user-data in favor of cloud-init.user-data value.', logged once) shows under init, modules-config and modules-final too; kiln records it under init-local only, where it was logged. Which levels each stage itself recorded is still compared",
  },
];

async function startDevLxd(kiln: string, tree: string, socket: string): Promise<ChildProcess> {
  const child = spawn(
    kiln,
    ['devel', 'serve-metadata', '--kind', 'lxd', '--dir', tree, '--socket', socket, '--exit-after', '900'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the devlxd mock did not start: ${out}`)), 20_000);
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('serving lxd')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`the devlxd mock exited ${code}: ${out}`)));
  });
  return child;
}

async function runSide(
  side: 'cloud-init' | 'kiln',
  kiln: string,
  tree: string,
  work: string,
): Promise<{ root: string; tree: Tree; runs: StageRun[] }> {
  const root = join(work, side);
  mkdirSync(root, { recursive: true });
  // Debian 13's cloud-init 25.1, the reference (as the seeds' parity harness).
  copyRootfs(root, { suite: PARITY_SUITE });
  if (side === 'kiln') installKiln(root, kiln);
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90-kiln-parity.cfg'), 'datasource_list: [LXD, None]\n');
  mkdirSync(join(root, 'dev/lxd'), { recursive: true });
  const server = await startDevLxd(kiln, tree, join(root, 'dev/lxd/sock'));
  try {
    const runs = runAllStages(root);
    return { root, tree: snapshotTree(root), runs };
  } finally {
    server.kill('SIGTERM');
  }
}

/** What each fixture must leave on both sides, so the comparison is known to cover real work. */
const EXPECT: Record<string, Array<{ path: string; contains?: string; absent?: true }>> = {
  parity: [
    { path: 'etc/hostname', contains: 'lxd-parity' },
    { path: 'etc/network/interfaces.d/50-cloud-init', contains: 'address 10.10.3.20/24' },
    { path: 'etc/kiln-lxd-parity', contains: 'from cloud-init.user-data' },
    { path: 'etc/kiln-lxd-legacy', absent: true },
    { path: 'etc/kiln-lxd-vendor', contains: 'vendor' },
    { path: 'root/lxd-runcmd' },
  ],
  'parity-fallback': [
    { path: 'etc/hostname', contains: 'lxd-fallback' },
    { path: 'etc/network/interfaces.d/50-cloud-init', contains: 'inet dhcp' },
  ],
};

function unmet(root: string, fixture: string): string[] {
  const out: string[] = [];
  for (const e of EXPECT[fixture] ?? []) {
    let text: string | undefined;
    try {
      text = readFileSync(join(root, e.path), 'utf8');
    } catch {
      text = undefined;
    }
    if (e.absent && text !== undefined) out.push(`${e.path} should not exist`);
    else if (!e.absent && text === undefined) out.push(`${e.path} is missing`);
    else if (e.contains !== undefined && !text?.includes(e.contains))
      out.push(`${e.path} lacks ${JSON.stringify(e.contains)}: ${JSON.stringify(text)}`);
  }
  return out;
}

for (const fixture of ['parity', 'parity-fallback']) {
  test(`LXD parity (${fixture}): cloud-init 25.1 and kiln leave the same trees reading the same devlxd socket`, {
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
        REASON,
      )
    )
      return;
    const kiln = builtBinary('kiln-linux-x64');
    if (!need(t, kiln !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
    const tree = join(FIXTURES, 'sources/lxd', fixture);
    const work = tempDir(t, 'kiln-lxd-parity-');
    const ci = await runSide('cloud-init', kiln as string, tree, work);
    const k = await runSide('kiln', kiln as string, tree, work);
    const ciData = JSON.parse(readFileSync(join(ci.root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
      v1: Record<string, unknown>;
    };
    assert.equal(
      ciData.v1.platform,
      'lxd',
      `cloud-init itself did not find LXD: ${ci.runs
        .map((r) => r.stderr)
        .join('\n')
        .slice(-800)}`,
    );
    assert.ok(
      k.tree.has('/run/cloud-init/instance-data.json'),
      `kiln wrote no instance-data.json: ${k.runs
        .map((r) => r.stderr)
        .join('\n')
        .slice(-800)}`,
    );
    assert.deepEqual(unmet(ci.root, fixture), [], 'the fixture does not do its work under cloud-init itself');
    assert.deepEqual(unmet(k.root, fixture), [], 'kiln misses what cloud-init did');
    const diffs = compareTrees(ci.tree, k.tree, [...LXD_ALLOWED, ...ALLOWED_DIFFERENCES], `lxd-${fixture}`);
    const reportDir = join(REPO, '.build', 'parity');
    mkdirSync(reportDir, { recursive: true });
    writeFileSync(join(reportDir, `lxd-${fixture}.txt`), `${formatDifferences(`lxd-${fixture}`, diffs)}\n`);
    const left = diffs.filter((d) => !d.allowedBy);
    assert.equal(
      left.length,
      0,
      `unexplained differences (full list in .build/parity/lxd-${fixture}.txt):\n${formatDifferences(`lxd-${fixture}`, left)}`,
    );
  });
}
