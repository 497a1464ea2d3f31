// Secrets never leak (issue 23): unique secrets planted in every place a user puts them (passwords plain and
// hashed, chpasswd lists, private keys in write_files and ssh_keys, sensitive metadata) must not appear in
// /var/log, in any world-readable file, on the console, or in `collect-logs` without -u; the files that must
// hold them keep cloud-init's modes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyRootfs } from '../helpers/debian-rootfs';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { installKiln, runAllStages } from '../parity/sandbox-stages';

/** Each planted secret, unique enough that any hit is a leak. */
const SECRET = {
  password: 'Sekrit-password-7f3a91',
  chpasswdPlain: 'Sekrit-chpasswd-2b8e44',
  chpasswdHash: '$6$saltsalt$Sekrit-hash-c4d2e9aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  writeFilesKey: 'Sekrit-write-files-key-5e1c0d',
  sshKey: 'Sekrit-ssh-host-key-9a7b3c',
  metadata: 'Sekrit-metadata-token-0d6f12',
};

const USER_DATA = `#cloud-config
locale: C.UTF-8
password: ${SECRET.password}
chpasswd:
  expire: false
  users:
    - {name: root, password: ${SECRET.chpasswdPlain}, type: text}
    - {name: daemon, password: '${SECRET.chpasswdHash}'}
write_files:
  - path: /root/.ssh/id_deploy
    permissions: '0600'
    content: |
      -----BEGIN OPENSSH PRIVATE KEY-----
      ${SECRET.writeFilesKey}
      -----END OPENSSH PRIVATE KEY-----
ssh_keys:
  ed25519_private: |
    -----BEGIN OPENSSH PRIVATE KEY-----
    ${SECRET.sshKey}
    -----END OPENSSH PRIVATE KEY-----
  ed25519_public: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPlanted planted@host
`;

function walk(dir: string, visit: (path: string, mode: number) => void): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    if (st.isDirectory()) {
      if (!['proc', 'sys', 'dev'].includes(name) || dir.split('/').length > 4) walk(p, visit);
    } else if (st.isFile() && st.size < 16 * 1024 * 1024) visit(p, st.mode & 0o7777);
  }
}

test('planted secrets stay out of logs, world-readable files, the console and collect-logs without -u', {
  timeout: 600_000,
}, async (t) => {
  const binary = builtBinary('kiln-linux-x64');
  if (
    !need(
      t,
      isRoot() && hasCommand('debootstrap') && binary !== undefined,
      'needs root, debootstrap (the cached Debian rootfs) and dist/kiln-linux-x64',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-secrets-'));
  installKiln(root, binary as string);
  const seed = join(root, 'var/lib/cloud/seed/nocloud');
  mkdirSync(seed, { recursive: true });
  // Sensitive metadata: cloud-init redacts keys such as security-credentials from instance-data.json.
  // The seed is the user's own input: root-only here, so that any world-readable hit is kiln's doing.
  writeFileSync(
    join(seed, 'meta-data'),
    `instance-id: iid-secrets\nsecurity-credentials: {token: ${SECRET.metadata}}\n`,
    { mode: 0o600 },
  );
  writeFileSync(join(seed, 'user-data'), USER_DATA, { mode: 0o600 });
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90-secrets.cfg'), 'datasource_list: [NoCloud]\n');

  const runs = runAllStages(root);
  const consoleText = runs.map((r) => r.stderr).join('\n');
  const collect = spawnSync(
    'unshare',
    [
      '--mount',
      '--pid',
      '--fork',
      'chroot',
      root,
      '/usr/bin/cloud-init',
      'collect-logs',
      '--tarfile',
      '/tmp/logs.tar.gz',
    ],
    { encoding: 'utf8' },
  );
  assert.equal(collect.status, 0, collect.stderr);
  const unpacked = join(root, 'tmp/logs');
  mkdirSync(unpacked);
  assert.equal(spawnSync('tar', ['-xzf', join(root, 'tmp/logs.tar.gz'), '-C', unpacked]).status, 0);

  const leaks: string[] = [];
  const check = (where: string, text: string) => {
    for (const [name, value] of Object.entries(SECRET)) if (text.includes(value)) leaks.push(`${name} in ${where}`);
  };
  check('the console (stdout and stderr of the four stages)', consoleText + collect.stdout + collect.stderr);
  walk(join(root, 'var/log'), (p) => check(p.slice(root.length), readFileSync(p, 'latin1')));
  walk(unpacked, (p) => check(`collect-logs: ${p.slice(unpacked.length)}`, readFileSync(p, 'latin1')));
  walk(root, (p, mode) => {
    if (mode & 0o004)
      check(`world-readable ${p.slice(root.length)} (mode ${mode.toString(8)})`, readFileSync(p, 'latin1'));
  });
  assert.deepEqual(leaks, []);

  // The secrets were planted for real: the files meant to hold them do, with cloud-init's modes.
  const mode = (p: string) => (lstatSync(join(root, p)).mode & 0o777).toString(8);
  assert.match(readFileSync(join(root, 'root/.ssh/id_deploy'), 'utf8'), new RegExp(SECRET.writeFilesKey));
  assert.equal(mode('root/.ssh/id_deploy'), '600');
  assert.match(readFileSync(join(root, 'etc/ssh/ssh_host_ed25519_key'), 'utf8'), new RegExp(SECRET.sshKey));
  assert.equal(mode('etc/ssh/ssh_host_ed25519_key'), '600');
  assert.match(
    readFileSync(join(root, 'run/cloud-init/instance-data-sensitive.json'), 'utf8'),
    new RegExp(SECRET.metadata),
  );
  assert.equal(mode('run/cloud-init/instance-data-sensitive.json'), '600');
  assert.doesNotMatch(
    readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8'),
    new RegExp(SECRET.metadata),
  );
  for (const f of ['user-data.txt', 'cloud-config.txt', 'obj.json'])
    assert.equal(mode(`var/lib/cloud/instances/iid-secrets/${f}`), '600', f);
  assert.match(
    readFileSync(join(root, 'etc/shadow'), 'utf8'),
    /^daemon:\$6\$saltsalt\$Sekrit-hash/m,
    'the hashed password was set',
  );
  assert.equal(mode('etc/shadow'), '640');
});
