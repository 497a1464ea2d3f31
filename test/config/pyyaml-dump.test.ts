// The PyYAML-compatible dumper: byte for byte what cloud-init's safeyaml.dumps writes (PyYAML in the Debian
// rootfs as the oracle), and read back by the YAML reader as the same value.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { pyyamlDump } from '../../src/config/pyyaml-dump';
import { readYaml } from '../../src/config/read-yaml';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';

/**
 * Values of the kinds kiln dumps (cloud-config, netplan): nested mappings and lists, strings YAML would misread if
 * plain.
 */
const VALUES: unknown[] = [
  {
    network: {
      version: 2,
      ethernets: {
        eth0: {
          dhcp4: true,
          addresses: ['192.0.2.10/24', '2001:db8::1/64'],
          match: { macaddress: '52:54:00:12:34:56' },
          'set-name': 'eth0',
        },
      },
    },
  },
  {
    runcmd: [['ls', '-l', '/'], 'echo "hi there"', ''],
    write_files: [{ path: '/etc/x', content: 'line one\nline two\n', permissions: '0644' }],
  },
  {
    strings: [
      'yes',
      'on',
      'null',
      '~',
      '0644',
      '0o17',
      '1e3',
      '1_000',
      '12:30',
      '2024-01-02',
      '-',
      '- x',
      'a: b',
      '#x',
      'x #y',
      ' lead',
      'trail ',
      "it's",
      'q"d',
      '@x',
      '*a',
      '&a',
      '!t',
      '%x',
      '?',
      '[x]',
      '{x}',
      'ünï',
    ],
  },
  {
    numbers: [0, -1, 42, 1.5, 0.0001, 1.5e-7, -2.5e-12, 123456.789],
    bools: [true, false],
    nothing: null,
    empty_list: [],
    empty_map: {},
  },
  {
    users: [
      'default',
      {
        name: 'alice',
        groups: 'admins, sudo',
        sudo: 'ALL=(ALL) NOPASSWD:ALL',
        ssh_authorized_keys: ['ssh-ed25519 AAAAC3Nza alice@host'],
      },
    ],
  },
  { b: 1, a: { d: [1, [2, 3], { e: 'f' }], c: 'long text '.repeat(12).trim(), quoted: 'a: b, and then '.repeat(8) } },
  // What PyYAML writes only in double quotes (safe_dump escapes all but printable ASCII), long lines split.
  {
    gecos: 'José Müller',
    tab: 'a\tb',
    bell: 'x\x07y',
    nel: 'a\x85b',
    nbsp: 'a\xa0b',
    emoji: 'ok 🎉',
    ключ: 'значение',
  },
  { long: `${'ünïcödé words '.repeat(10)}end`, spaced: `${'word '.repeat(20)}  two  spaces ${'x'.repeat(70)}` },
  { lines: 'one\ntwo\n', trailing: 'one \ntwo', leading: 'one\n two', both: 'é\nline', blank: '\n\nx' },
];

test('a dump reads back, through the YAML reader, as the value dumped', () => {
  for (const value of VALUES) assert.deepStrictEqual(readYaml(pyyamlDump(value), 'dump'), value, pyyamlDump(value));
});

const PYTHON_ORACLE = `
import json, sys
from cloudinit import safeyaml
for value in json.load(sys.stdin):
    sys.stdout.write(json.dumps(safeyaml.dumps(value, explicit_start=False, explicit_end=False)) + "\\n")
`;

test("the dump is cloud-init 22.4's safeyaml.dumps, byte for byte (PyYAML in the cached Debian rootfs)", (t) => {
  if (!need(t, isRoot() && hasCommand('chroot'), 'running PyYAML in the Debian rootfs needs root and chroot')) return;
  const root = ensureDebianRootfs();
  // -B: nothing is written into the shared rootfs.
  const r = spawnSync('chroot', [root, 'python3', '-B', '-c', PYTHON_ORACLE], {
    input: JSON.stringify(VALUES),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const dumps = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as string);
  for (const [i, value] of VALUES.entries()) assert.equal(pyyamlDump(value), dumps[i], JSON.stringify(value));
});

test("with indent 2 the dump is PyYAML's plain yaml.dump (what WSL's datasource writes), byte for byte", (t) => {
  if (!need(t, isRoot() && hasCommand('chroot'), 'running PyYAML in the Debian rootfs needs root and chroot')) return;
  const script =
    'import json, sys, yaml\nfor value in json.load(sys.stdin):\n    sys.stdout.write(json.dumps(yaml.dump(value)) + "\\n")\n';
  const r = spawnSync('chroot', [ensureDebianRootfs(), 'python3', '-B', '-c', script], {
    input: JSON.stringify(VALUES),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const dumps = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as string);
  for (const [i, value] of VALUES.entries()) assert.equal(pyyamlDump(value, true, 2), dumps[i], JSON.stringify(value));
});
