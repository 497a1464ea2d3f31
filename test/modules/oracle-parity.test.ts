// Runs cloud-init's own module handlers and kiln's modules on two copies of the Debian rootfs and compares the files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { mergeSystemConfig } from '../../src/config/merge-system-config';
import { parseYamlConfig } from '../../src/config/parse-yaml-config';
import { findModule } from '../../src/modules/registry';
import { copyRootfs } from '../helpers/debian-rootfs';
import { REPO } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { dateChangesOfThisRun } from '../helpers/shadow-days';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

const KEY_A = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOracleA a@x';
const KEY_B = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQOracleB b@y';

interface Scenario {
  name: string;
  modules: string[];
  cfg: Record<string, unknown>;
  metadata: Record<string, unknown>;
  publicKeys: string[];
  files: string[];
}

const SCENARIOS: Scenario[] = [
  {
    name: 'users, sudo, keys, passwords and ssh',
    modules: ['users_groups', 'ssh', 'set_passwords'],
    cfg: {
      ssh_genkeytypes: ['ed25519'],
      groups: ['ops', { devs: ['root'] }],
      users: [
        'default',
        {
          name: 'alice',
          gecos: 'Alice',
          groups: 'ops,devs',
          sudo: ['ALL=(ALL) ALL', 'ALL=(root) NOPASSWD:/bin/true'],
          shell: '/bin/bash',
          lock_passwd: false,
          hashed_passwd:
            '$6$abcdefgh$GtAXg0UM7cj2o5Tgru0G1O8B1cjxFoakVJaIbC0zxA8pBXcZg5bdYJ5tiQSZh10PUbqnfPpBo/YoXgTFpVwSA.',
          ssh_authorized_keys: [KEY_B],
        },
        { name: 'svc', system: true },
      ],
      chpasswd: {
        expire: false,
        users: [
          {
            name: 'alice',
            password:
              '$6$rounds=5000$xyz$LVl9R8dY1hXGcmCaaWsWnM06bd9mtfzkTVwyBzjPjhG0JwazIM.pa1HGBNh7wmW1A7zuJALi.AU/K4mfxZkuf0',
          },
        ],
      },
      ssh_pwauth: true,
    },
    metadata: { 'local-hostname': 'web1' },
    publicKeys: [KEY_A],
    files: [
      '/etc/passwd',
      '/etc/group',
      '/etc/shadow',
      '/etc/gshadow',
      '/etc/sudoers.d/90-cloud-init-users',
      '/etc/sudoers',
      '/home/debian/.ssh/authorized_keys',
      '/home/alice/.ssh/authorized_keys',
      '/root/.ssh/authorized_keys',
      '/etc/ssh/sshd_config',
      '/etc/ssh/sshd_config.d/50-cloud-init.conf',
    ],
  },
  {
    name: 'hostname, hosts, fstab, files and rsyslog',
    modules: ['write_files', 'set_hostname', 'update_hostname', 'update_etc_hosts', 'mounts', 'rsyslog'],
    cfg: {
      fqdn: 'db1.example.org',
      manage_etc_hosts: true,
      write_files: [
        { path: '/etc/app/a.conf', content: 'x=1\n', permissions: '0600' },
        { path: '/etc/app/b.bin', content: 'aGk=', encoding: 'b64', append: true },
      ],
      mounts: [
        ['/dev/vdz', '/data', 'ext4'],
        ['nfs:/x', '/nfs', 'nfs', 'ro'],
      ],
      rsyslog: { configs: ['*.* @@10.0.0.1'], remotes: { one: '10.0.0.2:514' } },
    },
    metadata: { 'local-hostname': 'ignored' },
    publicKeys: [],
    files: [
      '/etc/hostname',
      '/etc/hosts',
      '/var/lib/cloud/data/set-hostname',
      '/var/lib/cloud/data/previous-hostname',
      '/etc/fstab',
      '/etc/app/a.conf',
      '/etc/app/b.bin',
      '/etc/rsyslog.d/20-cloud-config.conf',
    ],
  },
  {
    name: 'localhost hosts entry, resolv.conf, legacy user and chpasswd forms',
    modules: ['update_etc_hosts', 'users_groups', 'ssh', 'set_passwords', 'resolv_conf', 'write_files'],
    cfg: {
      hostname: 'node7',
      fqdn: 'node7.lan',
      manage_etc_hosts: 'localhost',
      user: { name: 'admin', gecos: 'Admin User' },
      users: {
        default: true,
        bob: { groups: ['adm'], no_create_home: false, ssh_authorized_keys: KEY_B, lock_passwd: true },
      },
      disable_root: false,
      ssh_deletekeys: false,
      ssh_genkeytypes: [],
      chpasswd: {
        list: [
          'bob:$6$rounds=5000$xyz$LVl9R8dY1hXGcmCaaWsWnM06bd9mtfzkTVwyBzjPjhG0JwazIM.pa1HGBNh7wmW1A7zuJALi.AU/K4mfxZkuf0',
        ],
        expire: true,
      },
      ssh_pwauth: 'unchanged',
      manage_resolv_conf: true,
      resolv_conf: { nameservers: ['192.0.2.53'], searchdomains: ['lan'], options: { rotate: true, attempts: 3 } },
      write_files: [
        {
          path: '/opt/gz',
          encoding: 'gz+b64',
          content: 'H4sIAAAAAAAAA8tIzcnJBwCGphA2BQAAAA==',
          owner: 'bob:adm',
          permissions: 416,
        },
        { path: '/opt/later', content: 'x', defer: true },
      ],
    },
    metadata: { 'local-hostname': 'meta' },
    publicKeys: [KEY_A],
    files: [
      '/etc/hosts',
      '/etc/passwd',
      '/etc/group',
      '/etc/shadow',
      '/etc/sudoers.d/90-cloud-init-users',
      '/home/admin/.ssh/authorized_keys',
      '/home/bob/.ssh/authorized_keys',
      '/root/.ssh/authorized_keys',
      '/etc/ssh/sshd_config',
      '/etc/resolv.conf',
      '/opt/gz',
      '/opt/later',
    ],
  },
];

/** Lines that differ by design: creation-time headers and password-change days, and Python's set order of keys. */
function normalise(path: string, text: string): string {
  let t = text.replace(/(Created|Added) by cloud-init v\. [0-9.]+ on .+/g, '$1 by cloud-init v. <version> on <date>');
  if (path.endsWith('authorized_keys')) t = `${t.split('\n').filter(Boolean).sort().join('\n')}\n`;
  if (path === '/etc/shadow') t = dateChangesOfThisRun(t);
  return t;
}

function describe(root: string, path: string): string {
  const host = join(root, path);
  if (!existsSync(host)) return '<absent>';
  const st = statSync(host);
  return `mode ${(st.mode & 0o7777).toString(8)} uid ${st.uid} gid ${st.gid}\n${normalise(path, readFileSync(host, 'utf8'))}`;
}

for (const s of SCENARIOS) {
  test(`kiln matches cloud-init 25.1 on the Debian 13 rootfs: ${s.name}`, async (t) => {
    if (
      !need(
        t,
        isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
        'needs root, unshare and debootstrap for the Debian rootfs',
      )
    )
      return;
    const oracle = copyRootfs(tempDir(t, 'kiln-oracle-'), { suite: 'trixie' });
    const kiln = copyRootfs(tempDir(t, 'kiln-mine-'), { suite: 'trixie' });
    writeFileSync(
      join(oracle, 'tmp/run-modules.py'),
      readFileSync(join(REPO, 'test/modules/fixtures/run-cloud-init-modules.py')),
    );
    const req = JSON.stringify({ modules: s.modules, cfg: s.cfg, metadata: s.metadata, public_keys: s.publicKeys });
    const r = spawnSync(
      'unshare',
      [
        '--net',
        '--uts',
        '--ipc',
        '--mount',
        '--pid',
        '--fork',
        'chroot',
        oracle,
        'python3',
        '/tmp/run-modules.py',
        req,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);

    const sys = parseYamlConfig(readFileSync(join(kiln, 'etc/cloud/cloud.cfg'), 'utf8'), '/etc/cloud/cloud.cfg');
    const cfg = mergeSystemConfig(sys, structuredClone(s.cfg));
    const ctx = moduleContext(kiln, {
      instance: {
        localHostname: s.metadata['local-hostname'] as string,
        publicKeys: s.publicKeys,
        metadata: s.metadata,
      },
    });
    for (const name of s.modules) {
      const mod = findModule(name);
      assert.ok(mod, name);
      await mod.run(ctx, cfg);
    }
    for (const f of s.files) assert.equal(describe(kiln, f), describe(oracle, f), `${f} differs`);
    // Only deferred files may be missing on both sides: the comparison must be of real content.
    for (const f of s.files) if (f !== '/opt/later') assert.ok(existsSync(join(kiln, f)), `${f} was written`);
    if (s.modules.includes('ssh')) {
      const keys = (root: string) =>
        readdirSync(join(root, 'etc/ssh'))
          .filter((n) => n.startsWith('ssh_host_'))
          .sort();
      assert.deepEqual(keys(kiln), keys(oracle), 'the same host key files');
    }
  });
}
