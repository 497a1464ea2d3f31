// LXD parity: Debian's cloud-init 22.4 and the built kiln read the same devlxd mock on ROOT/dev/lxd/sock in two
// copies of the Debian rootfs; instance-data, the rendered network, the hostname and the modules' files must match.
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

/** The differences LXD adds to the common allow-list, each a deliberate choice documented in docs/datasources.md. */
const LXD_ALLOWED: AllowedDifference[] = [
  {
    path: /^\/run\/cloud-init\/instance-data\.json$/,
    kinds: ['content'],
    normalize: (text) => {
      // kiln hides cloud-init.user-data and cloud-init.vendor-data from non-root readers, as newer cloud-init does.
      try {
        const doc = JSON.parse(text) as { ds?: { config?: Record<string, string> }; sensitive_keys?: string[] };
        for (const k of ['cloud-init.user-data', 'cloud-init.vendor-data']) if (doc.ds?.config?.[k] !== undefined) doc.ds.config[k] = '<user or vendor data>';
        if (doc.sensitive_keys) doc.sensitive_keys = doc.sensitive_keys.filter((p) => !/^ds\/config\/cloud-init\./.test(p));
        return JSON.stringify(doc, null, 1);
      } catch {
        return text;
      }
    },
    reason: 'kiln redacts cloud-init.user-data/vendor-data in instance-data.json (newer cloud-init); 22.4 shows them to everyone',
  },
  {
    path: /^\/run\/cloud-init\/instance-data-sensitive\.json$/,
    kinds: ['content'],
    normalize: (text) => {
      try {
        const doc = JSON.parse(text) as { sensitive_keys?: string[] };
        if (doc.sensitive_keys) doc.sensitive_keys = doc.sensitive_keys.filter((p) => !/^ds\/config\/cloud-init\./.test(p));
        return JSON.stringify(doc, null, 1);
      } catch {
        return text;
      }
    },
    reason: 'the sensitive_keys list names the two keys kiln also redacts',
  },
];

async function startDevLxd(kiln: string, tree: string, socket: string): Promise<ChildProcess> {
  const child = spawn(kiln, ['devel', 'serve-metadata', '--kind', 'lxd', '--dir', tree, '--socket', socket, '--exit-after', '900'], { stdio: ['ignore', 'pipe', 'pipe'] });
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

async function runSide(side: 'cloud-init' | 'kiln', kiln: string, tree: string, work: string): Promise<{ root: string; tree: Tree; runs: StageRun[] }> {
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
    else if (e.contains !== undefined && !text?.includes(e.contains)) out.push(`${e.path} lacks ${JSON.stringify(e.contains)}: ${JSON.stringify(text)}`);
  }
  return out;
}

/**
 * What kiln has yet to follow of cloud-init 25.1 here (issue 30, item 2): shown as a todo, not counted, until it does
 * (as parity.test.ts's PENDING_25_1).
 */
const PENDING_25_1 = "status.json: 25.1 records a WARNING in the init stage where kiln records it in init-local";

for (const fixture of ['parity', 'parity-fallback']) {
  test(`LXD parity (${fixture}): cloud-init 25.1 and kiln leave the same trees reading the same devlxd socket`, { timeout: 900_000, todo: PENDING_25_1 }, async (t) => {
    if (!need(t, isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap') && hasCommand('/usr/bin/time'), REASON)) return;
    const kiln = builtBinary('kiln-linux-x64');
    if (!need(t, kiln !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
    const tree = join(FIXTURES, 'sources/lxd', fixture);
    const work = tempDir(t, 'kiln-lxd-parity-');
    const ci = await runSide('cloud-init', kiln as string, tree, work);
    const k = await runSide('kiln', kiln as string, tree, work);
    const ciData = JSON.parse(readFileSync(join(ci.root, 'run/cloud-init/instance-data.json'), 'utf8')) as { v1: Record<string, unknown> };
    assert.equal(ciData.v1.platform, 'lxd', `cloud-init itself did not find LXD: ${ci.runs.map((r) => r.stderr).join('\n').slice(-800)}`);
    assert.ok(k.tree.has('/run/cloud-init/instance-data.json'), `kiln wrote no instance-data.json: ${k.runs.map((r) => r.stderr).join('\n').slice(-800)}`);
    assert.deepEqual(unmet(ci.root, fixture), [], 'the fixture does not do its work under cloud-init itself');
    assert.deepEqual(unmet(k.root, fixture), [], 'kiln misses what cloud-init did');
    const diffs = compareTrees(ci.tree, k.tree, [...ALLOWED_DIFFERENCES, ...LXD_ALLOWED], `lxd-${fixture}`);
    const reportDir = join(REPO, '.build', 'parity');
    mkdirSync(reportDir, { recursive: true });
    writeFileSync(join(reportDir, `lxd-${fixture}.txt`), `${formatDifferences(`lxd-${fixture}`, diffs)}\n`);
    const left = diffs.filter((d) => !d.allowedBy);
    assert.equal(left.length, 0, `unexplained differences (full list in .build/parity/lxd-${fixture}.txt):\n${formatDifferences(`lxd-${fixture}`, left)}`);
  });
}
