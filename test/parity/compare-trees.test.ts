// The parity comparison on synthetic trees, the allow-list, tree snapshots and the seed set.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { AllowListUse } from './allow-list-use';
import { ALLOWED_DIFFERENCES } from './allowed-differences';
import { compareTrees, formatDifferences, textDiff, type AllowedDifference } from './compare-trees';
import { loadSeeds } from './seeds';
import { snapshotTree, type Tree, type TreeEntry } from './tree-snapshot';
import { dateChangesOfThisRun, RUN_START_DAY } from '../helpers/shadow-days';
import { tempDir } from '../helpers/temp';

function file(text: string, extra: Partial<TreeEntry> = {}): TreeEntry {
  return { type: 'file', mode: 0o644, uid: 0, gid: 0, size: text.length, sha256: `h-${text}`, text, ...extra };
}

function tree(entries: Record<string, TreeEntry>): Tree {
  return new Map(Object.entries(entries));
}

test('compareTrees reports each kind of difference', () => {
  const a = tree({
    '/etc/hostname': file('a\n'),
    '/etc/only-a': file('x'),
    '/etc/mode': file('m'),
    '/etc/owner': file('o'),
    '/etc/kind': file('k'),
    '/etc/link': { type: 'symlink', mode: 0o777, uid: 0, gid: 0, size: 1, target: '/a' },
  });
  const b = tree({
    '/etc/hostname': file('b\n'),
    '/etc/only-b': file('y'),
    '/etc/mode': file('m', { mode: 0o600 }),
    '/etc/owner': file('o', { uid: 1000 }),
    '/etc/kind': { type: 'dir', mode: 0o755, uid: 0, gid: 0, size: 0 },
    '/etc/link': { type: 'symlink', mode: 0o777, uid: 0, gid: 0, size: 1, target: '/b' },
  });
  const d = compareTrees(a, b, []);
  assert.deepEqual(
    d.map((x) => `${x.kind} ${x.path}`),
    [
      'content /etc/hostname',
      'type /etc/kind',
      'link-target /etc/link',
      'mode /etc/mode',
      'only-cloud-init /etc/only-a',
      'only-kiln /etc/only-b',
      'owner /etc/owner',
    ],
  );
  assert.ok(d.every((x) => x.allowedBy === undefined));
  assert.match(d[0]?.detail ?? '', /1 cloud-init: "a"\n {2}1 kiln: {7}"b"/);
  assert.deepEqual(compareTrees(a, a, []), []);
});

test('the allow-list: kinds, normalisers (all matching ones, composed), seed scoping', () => {
  const rules: AllowedDifference[] = [
    { path: /^\/etc\/random$/, kinds: ['content'], reason: 'random' },
    { path: /^\/etc\/stamp$/, kinds: [], normalize: (t) => t.replace(/\d+/g, 'N'), reason: 'numbers' },
    { path: /.*/, kinds: [], normalize: (t) => t.replace(/^# hdr.*$/m, '# hdr'), reason: 'header' },
    { path: /^\/etc\/seeded$/, kinds: 'any', seeds: /^07-/, reason: 'only seed 07' },
  ];
  const a = tree({
    '/etc/random': file('r1'),
    '/etc/stamp': file('# hdr 1\nt=1\n'),
    '/etc/seeded': file('1'),
    '/etc/still': file('# hdr a\nx\n'),
  });
  const b = tree({
    '/etc/random': file('r2', { mode: 0o600 }),
    '/etc/stamp': file('# hdr 2\nt=22\n'),
    '/etc/seeded': file('2'),
    '/etc/still': file('# hdr b\ny\n'),
  });
  const d = compareTrees(a, b, rules, '03-x');
  const unexplained = d.filter((x) => !x.allowedBy).map((x) => `${x.kind} ${x.path}`);
  assert.deepEqual(
    unexplained,
    ['mode /etc/random', 'content /etc/seeded', 'content /etc/still'],
    'a content rule does not excuse a mode change; seed-scoped rules apply to their seeds only',
  );
  assert.match(d.find((x) => x.path === '/etc/still')?.detail ?? '', /after normalising \(header\)/);
  const d7 = compareTrees(a, b, rules, '07-ssh');
  assert.equal(d7.find((x) => x.path === '/etc/seeded')?.allowedBy, 'only seed 07');
  assert.match(formatDifferences('03-x', d), /\[03-x\] mode \/etc\/random/);
  assert.equal(textDiff('same', 'same'), '');
});

test('allow-list use: an entry, a kind it lists or a normaliser that excused nothing is reported', () => {
  const random: AllowedDifference = { path: /^\/etc\/random$/, kinds: ['content', 'mode'], reason: 'random' };
  const numbers: AllowedDifference = {
    path: /^\/etc\/stamp$/,
    kinds: [],
    normalize: (t) => t.replace(/\d+/g, 'N'),
    reason: 'numbers',
  };
  const header: AllowedDifference = {
    path: /.*/,
    kinds: [],
    normalize: (t) => t.replace(/^# hdr.*$/m, '# hdr'),
    reason: 'header',
  };
  const gone: AllowedDifference = { path: /^\/etc\/gone$/, kinds: ['only-kiln'], reason: 'stale' };
  const either1: AllowedDifference = {
    path: /^\/etc\/twice$/,
    kinds: [],
    normalize: (t) => t.toLowerCase(),
    reason: 'lower',
  };
  const either2: AllowedDifference = {
    path: /^\/etc\/twice$/,
    kinds: [],
    normalize: (t) => t.toUpperCase(),
    reason: 'upper',
  };
  const rules = [random, numbers, header, gone, either1, either2];
  const a = tree({
    '/etc/random': file('r1'),
    '/etc/stamp': file('# hdr 1\nt=1\n'),
    '/etc/same': file('# hdr a\n'),
    '/etc/twice': file('A'),
  });
  const b = tree({
    '/etc/random': file('r2'),
    '/etc/stamp': file('# hdr 1\nt=22\n'),
    '/etc/same': file('# hdr a\n'),
    '/etc/twice': file('a'),
  });
  const d = compareTrees(a, b, rules, '01-x');
  assert.deepEqual(
    d.filter((x) => !x.allowedBy),
    [],
  );
  // Only the numbers normaliser was needed for /etc/stamp: the header is the same on both sides.
  assert.deepEqual(d.find((x) => x.path === '/etc/stamp')?.excusedBy, [numbers]);
  const use = new AllowListUse();
  use.record('01-x', d);
  assert.deepEqual(use.seeds, new Set(['01-x']));
  assert.deepEqual(use.unused(rules), [
    "/^\\/etc\\/random$/: no 'mode' difference on its paths (random)",
    '/.*/: its normaliser changed no compared file (header)',
    "/^\\/etc\\/gone$/: no 'only-kiln' difference on its paths (stale)",
  ]);
  // The same runs with the header differing use the header normaliser too.
  use.record(
    '02-y',
    compareTrees(tree({ '/etc/s': file('# hdr 1\n') }), tree({ '/etc/s': file('# hdr 2\n') }), rules, '02-y'),
  );
  assert.equal(use.unused(rules).length, 2);
});

test('the real allow-list: shadow hashes, MIME boundaries, JSON times and headers normalise; a changed user does not', () => {
  const a = tree({
    '/etc/shadow': file('root:*:19000:0:99999:7:::\ncarol:$y$j9T$abc$def:20779:0:99999:7:::\n'),
    '/etc/sudoers.d/90-cloud-init-users': file(
      '# Created by cloud-init v. 22.4.2 on Sun, 22 Nov 2026 03:31:46 +0000\n\n# User rules for alice\nalice ALL=(ALL) NOPASSWD:ALL\n',
    ),
    '/var/lib/cloud/data/status.json': file('{"v1": {"init": {"start": 1.5, "finished": 2.5, "errors": []}}}'),
    '/var/lib/cloud/instances/i-1/user-data.txt.i': file(
      'Content-Type: multipart/mixed; boundary="===============8091632687084507999=="\n',
    ),
    '/var/lib/cloud/instances/i-1/sem/config_ssh': file('1: 1795318306.66793\n'),
    '/etc/ssh/ssh_host_ed25519_key': file('KEY-A', { mode: 0o600 }),
  });
  const b = tree({
    '/etc/shadow': file('root:*:19000:0:99999:7:::\ncarol:$6$salt$hash:20779:0:99999:7:::\n'),
    '/etc/sudoers.d/90-cloud-init-users': file(
      '# Created by cloud-init v. 22.4 on Sun, 22 Nov 2026 03:31:53 +0000\n\n# User rules for alice\nalice ALL=(ALL) NOPASSWD:ALL\n',
    ),
    '/var/lib/cloud/data/status.json': file('{"v1": {"init": {"start": 9.5, "finished": 9.9, "errors": []}}}'),
    '/var/lib/cloud/instances/i-1/user-data.txt.i': file(
      'Content-Type: multipart/mixed; boundary="===============0499320797529379234=="\n',
    ),
    '/var/lib/cloud/instances/i-1/sem/config_ssh': file('77: 1795318399.1\n'),
    '/etc/ssh/ssh_host_ed25519_key': file('KEY-B', { mode: 0o600 }),
  });
  assert.deepEqual(
    compareTrees(a, b, ALLOWED_DIFFERENCES).filter((x) => !x.allowedBy),
    [],
  );
  const changed = new Map(b);
  changed.set('/etc/shadow', file('root:*:19000:0:99999:7:::\ncarol:!$6$salt$hash:20779:0:99999:7:::\n'));
  changed.set('/etc/ssh/ssh_host_ed25519_key', file('KEY-B', { mode: 0o644 }));
  const left = compareTrees(a, changed, ALLOWED_DIFFERENCES)
    .filter((x) => !x.allowedBy)
    .map((x) => `${x.kind} ${x.path}`);
  assert.deepEqual(
    left,
    ['mode /etc/ssh/ssh_host_ed25519_key', 'content /etc/shadow'].sort((x, y) =>
      (x.split(' ')[1] as string).localeCompare(y.split(' ')[1] as string),
    ),
  );
  for (const r of ALLOWED_DIFFERENCES) assert.ok(r.reason.length > 20, `every allow-list entry says why: ${r.path}`);
});

test('a password change dated by this run reads the same on both sides of midnight; older days, 0 and empty do not change', () => {
  const day = RUN_START_DAY;
  const before = `root:*:19000:0:99999:7:::\ndebian:!:${day}:0:99999:7:::\nmust:!:0:0:99999:7:::\nnone:*::0:99999:7:::`;
  const after = `root:*:19000:0:99999:7:::\ndebian:!:${day + 1}:0:99999:7:::\nmust:!:0:0:99999:7:::\nnone:*::0:99999:7:::`;
  // The kiln side ran after midnight: "today" is the next day there.
  assert.equal(dateChangesOfThisRun(before, day), dateChangesOfThisRun(after, day + 1));
  assert.equal(
    dateChangesOfThisRun(after, day + 1),
    'root:*:19000:0:99999:7:::\ndebian:!:<today>:0:99999:7:::\nmust:!:0:0:99999:7:::\nnone:*::0:99999:7:::',
  );
  // A day before the run is the rootfs's own and still compared.
  assert.equal(dateChangesOfThisRun(`old:!:${day - 1}:0:99999:7:::`, day), `old:!:${day - 1}:0:99999:7:::`);
});

test('snapshotTree records types, modes, links and text, and skips the folders it must not walk', (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/sub'), { recursive: true });
  mkdirSync(join(root, 'proc/1'), { recursive: true });
  writeFileSync(join(root, 'etc/sub/a.txt'), 'hello\n');
  chmodSync(join(root, 'etc/sub/a.txt'), 0o600);
  writeFileSync(join(root, 'etc/bin'), Buffer.from([0, 1, 2]));
  writeFileSync(join(root, 'proc/1/status'), 'x');
  mkdirSync(join(root, 'var/cache/debconf'), { recursive: true });
  mkdirSync(join(root, 'var/cache/apt'), { recursive: true });
  writeFileSync(join(root, 'var/cache/debconf/config.dat'), 'Name: grub-pc/install_devices\n');
  writeFileSync(join(root, 'var/cache/apt/pkgcache.bin'), 'x');
  symlinkSync('/usr/share/zoneinfo/UTC', join(root, 'etc/localtime'));
  const s = snapshotTree(root);
  assert.equal(s.get('/etc/sub/a.txt')?.mode, 0o600);
  assert.equal(s.get('/etc/sub/a.txt')?.text, 'hello\n');
  assert.equal(s.get('/etc/bin')?.text, undefined);
  assert.equal(s.get('/etc/localtime')?.target, '/usr/share/zoneinfo/UTC');
  assert.equal(s.get('/etc/sub')?.type, 'dir');
  assert.ok(![...s.keys()].some((k) => k.startsWith('/proc')));
  // Of /var/cache, only debconf's database is walked.
  assert.equal(s.get('/var/cache/debconf/config.dat')?.text, 'Name: grub-pc/install_devices\n');
  assert.deepEqual(
    [...s.keys()].filter((k) => k.startsWith('/var/cache/')),
    ['/var/cache/debconf', '/var/cache/debconf/config.dat'],
  );
});

test('the seed set: at least 25 seeds, each with meta-data, notes, modules and expectations', () => {
  const seeds = loadSeeds();
  assert.ok(seeds.length >= 25, `${seeds.length} seeds`);
  for (const s of seeds) {
    assert.ok(s.notes.length > 10, `${s.name} has notes`);
    assert.ok(s.expect.length > 0, `${s.name} checks something`);
    assert.ok(s.modules.length > 0, `${s.name} names its modules`);
  }
  assert.ok(
    seeds.some((s) => s.files.vendorData),
    'vendor data',
  );
  assert.ok(
    seeds.some((s) => s.laterBoots.some((b) => !b.instanceId)),
    'second boot, same instance',
  );
  assert.ok(
    seeds.some((s) => s.laterBoots.some((b) => b.instanceId)),
    'second boot, new instance id',
  );
  assert.ok(
    seeds.some((s) => s.files.networkConfig),
    'network config',
  );
});
