// kiln's commands against cloud-init 25.1's own (status, query, cloud-id, analyze, schema, clean, collect-logs):
// Debian 13's cloud-init and the built kiln work on the same tree (a trixie rootfs copy, before any boot and after
// kiln's boot of a NoCloud seed) and must print the same bytes on stdout, the same messages on stderr and exit with
// the same code; clean and collect-logs must also leave and gather the same files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { copyRootfs } from '../helpers/debian-rootfs';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

/** A seed whose user data has a typo'd top-level key: the boot ends with a recoverable error, so status shows one. */
const USER_DATA = '#cloud-config\nhostnam: typo\nruncmd: [echo hi]\n';

const STATUS = [
  ['status'],
  ['status', '--long'],
  ['status', '--format', 'json'],
  ['status', '--format', 'yaml'],
  ['cloud-id'],
  ['cloud-id', '--long'],
  ['cloud-id', '--json'],
];
const ANALYZE = [
  ['analyze', 'show'],
  ['analyze', 'blame'],
  ['analyze', 'dump'],
];

/** Files `schema -c` checks, one per verdict cloud-init 25.1's schema command reaches (written under /tmp/schema). */
const SCHEMA_FILES: Record<string, string> = {
  'valid.yaml': '#cloud-config\nhostname: x\n',
  'typo.yaml': '#cloud-config\nhostnam: x\n',
  'deprecated.yaml': '#cloud-config\nusers:\n- name: bob\n  lock-passwd: true\n',
  'both.yaml': '#cloud-config\nusers:\n- name: bob\n  lock-passwd: true\nhostnam: 1\n',
  'no-header.yaml': 'hostname: x\n',
  'script.yaml': '#!/bin/sh\necho hi\n',
  'list.yaml': '#cloud-config\n- a\n',
  'empty.yaml': '',
  'jinja.yaml': '## template: jinja\n#cloud-config\nhostname: {{ v1.local_hostname }}\nfqdn: {{ nope }}\n',
  'jinja-no-header.yaml': '## template: jinja\nhostname: x\n',
  'net-v1.yaml': 'version: 1\nconfig:\n  - type: physical\n    name: eth0\n    foo: bar\n    subnets: [{type: dhcp}]\n',
  'net-v2.yaml': 'network:\n  version: 2\n  ethernets:\n    eth0: {dhcp4: true}\n',
  'net-empty.yaml': 'version: 1\nconfig: []\n',
  'net-list.yaml': '- a\n',
};
const SCHEMA = [
  ...[
    'valid',
    'typo',
    'deprecated',
    'both',
    'no-header',
    'script',
    'list',
    'empty',
    'jinja',
    'jinja-no-header',
    'missing',
  ].map((n) => ['schema', '-c', `/tmp/schema/${n}.yaml`]),
  ['schema', '--annotate', '-c', '/tmp/schema/both.yaml'],
  ...['net-v1', 'net-v2', 'net-empty', 'net-list'].map((n) => [
    'schema',
    '-t',
    'network-config',
    '-c',
    `/tmp/schema/${n}.yaml`,
  ]),
];
const QUERY = [
  ['query', '--all'],
  ['query', 'v1'],
  ['query', 'ds'],
  ['query', '--list-keys'],
  ['query', '-l', 'v1'],
  ['query', '--list-keys', 'v1.instance_id'],
  ['query', 'v1.instance_id'],
  ['query', 'instance-id'],
  ['query', 'userdata'],
  ['query', 'combined_cloud_config'],
  ['query', 'merged_cfg.system_info.distro'],
  ['query', 'nokey'],
  ['query', '-f', '{{ v1.cloud_name }}/{{ ds.meta_data["local-hostname"] }} {{ v1.nope }} {{ nokey }}'],
  ['query', '-f', '{% if false %}x{% endif %}'],
];

interface Answer {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * cloud-init logs its console messages with a time and the module (`… - query.py[ERROR]: `); kiln with the level only.
 */
function consoleLevels(stderr: string): string {
  return stderr.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - [\w-]+\.py\[([A-Z]+)\]: /gm, '$1: ');
}

/** cloud-init's command ARGS in ROOT; `cloud-id` is a program of its own there, a command of kiln's. */
function cloudInit(root: string, args: string[]): Answer {
  const argv = args[0] === 'cloud-id' ? args : ['cloud-init', ...args];
  const r = spawnSync('unshare', ['--mount', '--net', '--fork', 'chroot', root, ...argv], {
    encoding: 'utf8',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
  });
  // cloud-init's schema first restores the datasource from obj.pkl, a Python pickle kiln does not write; without it
  // cloud-init says so and goes on with the default paths, which are kiln's.
  const stderr = consoleLevels(r.stderr).replace(
    'WARNING: datasource not detected, using default instance-data/user-data paths.\n',
    '',
  );
  return { code: r.status, stdout: r.stdout, stderr };
}

/**
 * kiln's answer on ROOT. A file `schema -c` names is a path of this machine, so it is given under ROOT and its
 * name read back without; kiln's schema errors also say the line and column (issue 31 asks for them), cloud-init's not.
 */
function kiln(binary: string, root: string, args: string[]): Answer {
  const hostArgs = args.map((a) => (a.startsWith('/tmp/schema/') ? join(root, a) : a));
  const r = spawnSync(binary, ['--root', root, ...hostArgs], {
    encoding: 'utf8',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
  });
  const inRoot = (text: string) =>
    args[0] === 'schema'
      ? text
          .split(join(root, '/tmp/schema/'))
          .join('/tmp/schema/')
          .replace(/ \(line \d+, column \d+\)/g, '')
      : text;
  return { code: r.status, stdout: inRoot(r.stdout), stderr: inRoot(r.stderr) };
}

function compare(binary: string, root: string, commands: string[][], when: string): void {
  for (const args of commands) {
    assert.deepEqual(kiln(binary, root, args), cloudInit(root, args), `${when}: ${args.join(' ')}`);
  }
}

test('status, query, cloud-id, analyze and schema print what cloud-init 25.1 prints on the same tree, before a boot and after one', async (t) => {
  const binary = builtBinary('kiln-linux-x64');
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the trixie rootfs',
    )
  )
    return;
  if (!need(t, binary !== undefined, 'needs the built binary (node build.mjs linux-x64)')) return;
  const root = copyRootfs(tempDir(t, 'kiln-cli-oracle-'), { suite: 'trixie' });
  const seed = join(root, 'var/lib/cloud/seed/nocloud');
  mkdirSync(seed, { recursive: true });
  writeFileSync(join(seed, 'meta-data'), 'instance-id: iid-cli-1\nlocal-hostname: cli1\n');
  writeFileSync(join(seed, 'user-data'), USER_DATA);
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90-kiln-cli.cfg'), 'datasource_list: [NoCloud]\n');

  compare(binary as string, root, [...STATUS, ['query', '--all'], ['query', 'v1']], 'before the boot');

  const boot = spawnSync(
    'unshare',
    [
      '--uts',
      '--ipc',
      '--mount',
      '--pid',
      '--net',
      '--fork',
      '--kill-child',
      binary as string,
      '--root',
      root,
      '--all-stages',
    ],
    { encoding: 'utf8', timeout: 300_000 },
  );
  // The boot's own result does not matter (a module that fails in the chroot is one more error both must show).
  assert.ok(
    existsSync(join(root, 'run/cloud-init/result.json')),
    `kiln's boot finished: ${boot.status}\n${boot.stderr}`,
  );
  mkdirSync(join(root, 'tmp/schema'));
  for (const [name, body] of Object.entries(SCHEMA_FILES)) writeFileSync(join(root, 'tmp/schema', name), body);
  compare(binary as string, root, [...STATUS, ...QUERY, ...ANALYZE, ...SCHEMA], 'after the boot');

  // Without a question, both say what query expects and exit 1 (each then prints its own help).
  const bare = [kiln(binary as string, root, ['query']), cloudInit(root, ['query'])].map((a) => ({
    code: a.code,
    stderr: a.stderr,
  }));
  assert.deepEqual(bare[0], bare[1]);
});

/** Every path under ROOT outside the OS's own programs, with its type and, for small files, its content's length. */
function pathsOf(root: string): string[] {
  const r = spawnSync(
    'find',
    [
      '.',
      '-xdev',
      '(',
      '-path',
      './usr',
      '-o',
      '-path',
      './proc',
      '-o',
      '-path',
      './sys',
      '-o',
      '-path',
      './dev',
      '-o',
      '-path',
      './var/lib/dpkg',
      ')',
      '-prune',
      '-o',
      '-printf',
      '%p %y\\n',
    ],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return r.stdout.split('\n').filter(Boolean).sort();
}

/** A trixie copy with the seed, booted by kiln: the tree `clean` and `collect-logs` work on. */
function bootedTrixie(t: TestContext, binary: string, name: string): string {
  const root = copyRootfs(tempDir(t, `kiln-cli-${name}-`), { suite: 'trixie' });
  const seed = join(root, 'var/lib/cloud/seed/nocloud');
  mkdirSync(seed, { recursive: true });
  writeFileSync(join(seed, 'meta-data'), 'instance-id: iid-cli-1\nlocal-hostname: cli1\n');
  writeFileSync(join(seed, 'user-data'), '#cloud-config\nssh_pwauth: true\nruncmd: [echo hi]\n');
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90-kiln-cli.cfg'), 'datasource_list: [NoCloud]\n');
  spawnSync(
    'unshare',
    ['--uts', '--ipc', '--mount', '--pid', '--net', '--fork', '--kill-child', binary, '--root', root, '--all-stages'],
    { encoding: 'utf8', timeout: 300_000 },
  );
  assert.ok(existsSync(join(root, 'run/cloud-init/result.json')), `kiln's boot of ${name} finished`);
  return root;
}

test('clean removes what cloud-init 25.1 clean removes and prints the same', async (t) => {
  const binary = builtBinary('kiln-linux-x64');
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the trixie rootfs',
    )
  )
    return;
  if (!need(t, binary !== undefined, 'needs the built binary (node build.mjs linux-x64)')) return;
  for (const args of [
    ['clean'],
    ['clean', '--logs', '--machine-id', '--configs', 'all'],
    ['clean', '-l', '-c', 'ssh_config', '--seed'],
  ]) {
    const theirs = bootedTrixie(t, binary as string, 'theirs');
    const mine = bootedTrixie(t, binary as string, 'mine');
    assert.deepEqual(pathsOf(mine), pathsOf(theirs), 'the two boots left the same paths');
    const a = kiln(binary as string, mine, args);
    const b = cloudInit(theirs, args);
    assert.deepEqual(a, b, args.join(' '));
    // --machine-id: cloud-init asks whether systemd runs (no, in a chroot) and then removes the file; kiln asks
    // whether the target has systemd (yes: an image is not running) and writes 'uninitialized', which the image's
    // first boot turns into a new id as it would a missing file.
    const machineId = (root: string) =>
      existsSync(join(root, 'etc/machine-id')) ? readFileSync(join(root, 'etc/machine-id'), 'utf8') : undefined;
    if (args.includes('--machine-id')) {
      assert.equal(machineId(theirs), undefined);
      assert.equal(machineId(mine), 'uninitialized\n');
    } else assert.equal(machineId(mine), machineId(theirs));
    // kiln's own event log (kiln booted both trees) is one of kiln's logs, unknown to cloud-init's clean.
    const others = (root: string) =>
      pathsOf(root).filter((p) => p !== './etc/machine-id f' && p !== './var/log/kiln-events.jsonl f');
    assert.deepEqual(others(mine), others(theirs), `what is left after ${args.join(' ')}`);
  }
});

/** The members of the gzipped tarball FILE, without their top folder (whose name is the day's date), sorted. */
function tarMembers(file: string): string[] {
  const r = spawnSync('tar', ['tzf', file], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((m) => m.replace(/^[^/]+\/?/, ''))
    .filter(Boolean)
    .sort();
}

test('collect-logs gathers what cloud-init 25.1 collect-logs gathers, laid out as it lays it out', async (t) => {
  const binary = builtBinary('kiln-linux-x64');
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap') && hasCommand('tar'),
      'needs root, unshare, chroot, debootstrap and tar for the trixie rootfs',
    )
  )
    return;
  if (!need(t, binary !== undefined, 'needs the built binary (node build.mjs linux-x64)')) return;
  const root = bootedTrixie(t, binary as string, 'logs');
  const out = tempDir(t, 'kiln-cli-logs-out-');
  // Redacted (-r): the files others may read, the logs, the version and the journals, by both.
  const theirs = cloudInit(root, ['collect-logs', '-r', '-t', '/tmp/theirs.tar.gz']);
  assert.equal(theirs.code, 0, theirs.stderr);
  const mine = kiln(binary as string, root, ['collect-logs', '-r', '-t', join(out, 'mine.tar.gz')]);
  assert.equal(mine.code, 0, mine.stderr);
  assert.equal(mine.stderr, `Wrote ${join(out, 'mine.tar.gz')}\n`);
  // kiln's own event log is one of its logs; cloud-init has none.
  assert.deepEqual(
    tarMembers(join(out, 'mine.tar.gz')).filter((m) => m !== 'var/log/kiln-events.jsonl'),
    tarMembers(join(root, 'tmp/theirs.tar.gz')),
  );
});
