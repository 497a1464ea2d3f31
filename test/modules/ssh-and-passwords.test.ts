import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setPasswords } from '../../src/modules/set-passwords';
import { ssh } from '../../src/modules/ssh';
import { usersGroups } from '../../src/modules/users-groups';
import { cryptMatchesInRoot } from '../helpers/crypt-in-root';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

const META_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMeta meta@cloud';
const CFG_KEY = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCfg cfg@user';
const SYSTEM_INFO = {
  default_user: {
    name: 'debian',
    lock_passwd: true,
    gecos: 'Debian',
    groups: ['sudo'],
    sudo: ['ALL=(ALL) NOPASSWD:ALL'],
    shell: '/bin/bash',
  },
};

function canRun(t: Parameters<typeof tempDir>[0]): boolean {
  return need(
    t,
    isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
    'needs root, unshare and debootstrap for the Debian rootfs',
  );
}

function shadowHash(root: string, user: string): string[] {
  return (
    readFileSync(join(root, 'etc/shadow'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${user}:`))
      ?.split(':') ?? []
  );
}

test('ssh: deletes image keys, generates the configured types, installs metadata keys, guards root', async (t) => {
  if (!canRun(t)) return;
  const root = copyRootfs(tempDir(t, 'kiln-ssh-'));
  const oldRsa = readFileSync(join(root, 'etc/ssh/ssh_host_rsa_key.pub'), 'utf8');
  const ctx = moduleContext(root, { instance: { publicKeys: [META_KEY] } });
  const cfg = {
    system_info: SYSTEM_INFO,
    users: ['default'],
    ssh_genkeytypes: ['rsa', 'dsa', 'nosuchtype', 'ed25519'],
    ssh_authorized_keys: [CFG_KEY],
  };
  await usersGroups.run(ctx, cfg);
  await ssh.run(ctx, cfg);
  assert.equal(existsSync(join(root, 'etc/ssh/ssh_host_ecdsa_key')), false, 'image keys not asked for are gone');
  // RSA and Ed25519 from OpenSSL in-process, DSA from the target's ssh-keygen.
  for (const type of ['rsa', 'ed25519', 'dsa']) {
    const key = join(root, `etc/ssh/ssh_host_${type}_key`);
    assert.ok(existsSync(key) && existsSync(`${key}.pub`), `${type} key generated`);
    assert.equal(statSync(key).mode & 0o777, 0o600);
    const check = await ctx.platform.run(['ssh-keygen', '-l', '-f', `/etc/ssh/ssh_host_${type}_key.pub`], {
      allowFailure: true,
    });
    assert.equal(check.code, 0, check.stderr);
  }
  assert.notEqual(
    readFileSync(join(root, 'etc/ssh/ssh_host_rsa_key.pub'), 'utf8'),
    oldRsa,
    'a fresh key, not the image one',
  );
  const user = readFileSync(join(root, 'home/debian/.ssh/authorized_keys'), 'utf8').split('\n').filter(Boolean).sort();
  assert.deepEqual(user, [CFG_KEY, META_KEY].sort());
  const rootKeys = readFileSync(join(root, 'root/.ssh/authorized_keys'), 'utf8').split('\n').filter(Boolean);
  assert.equal(rootKeys.length, 2);
  for (const l of rootKeys)
    assert.match(
      l,
      /^no-port-forwarding,no-agent-forwarding,no-X11-forwarding,command="echo 'Please login as the user \\"debian\\" rather than the user \\"root\\".';echo;sleep 10;exit 142" ssh-/,
    );
  assert.equal(statSync(join(root, 'root/.ssh')).mode & 0o777, 0o700);
  assert.equal(statSync(join(root, 'root/.ssh/authorized_keys')).mode & 0o777, 0o600);
  assert.match(ctx.outputText(), /The key fingerprint is/);
  // ssh-keygen's DSA key runs while OpenSSL makes RSA, yet the reports come in the config's order; a type
  // ssh-keygen refuses (it exits 255) is a warning, as cloud-init's logexc, and the keys after it are still made.
  assert.deepEqual(
    [...ctx.outputText().matchAll(/Generating public\/private (\w+) key pair/g)].map((m) => m[1]),
    ['rsa', 'dsa', 'ed25519'],
  );
  assert.deepEqual(ctx.problems, [
    'WARNING: Failed generating key type nosuchtype to file /etc/ssh/ssh_host_nosuchtype_key: unknown key type nosuchtype',
  ]);
});

test('ssh: given ssh_keys are written and a missing public half is derived; disable_root false gives plain root keys', async (t) => {
  if (!canRun(t)) return;
  const root = copyRootfs(tempDir(t, 'kiln-ssh-'));
  const ctx = moduleContext(root, { instance: { publicKeys: [META_KEY] } });
  const gen = await ctx.platform.run([
    'sh',
    '-c',
    'ssh-keygen -q -t ed25519 -C testkey -N "" -f /tmp/k && cat /tmp/k && rm /tmp/k /tmp/k.pub',
  ]);
  await ssh.run(ctx, {
    ssh_keys: {
      ed25519_private: gen.stdout,
      ed25519_certificate: 'ssh-ed25519-cert-v01@openssh.com AAAAfake cert',
      bogus_private: 'x',
      dsa_private: 'x',
    },
    disable_root: false,
    users: [],
  });
  assert.equal(
    readFileSync(join(root, 'etc/ssh/ssh_host_ed25519_key-cert.pub'), 'utf8'),
    'ssh-ed25519-cert-v01@openssh.com AAAAfake cert',
  );
  // 25.1's modes for given keys: the private one 0600, the certificate (and a given public key) 0644.
  assert.equal(statSync(join(root, 'etc/ssh/ssh_host_ed25519_key-cert.pub')).mode & 0o777, 0o644);
  assert.equal(statSync(join(root, 'etc/ssh/ssh_host_ed25519_key')).mode & 0o777, 0o600);
  assert.equal(
    readFileSync(join(root, 'etc/ssh/sshd_config.d/50-cloud-init.conf'), 'utf8'),
    'HostCertificate /etc/ssh/ssh_host_ed25519_key-cert.pub\n',
  );
  assert.equal(readFileSync(join(root, 'etc/ssh/ssh_host_ed25519_key'), 'utf8'), gen.stdout);
  assert.match(
    readFileSync(join(root, 'etc/ssh/ssh_host_ed25519_key.pub'), 'utf8'),
    /^ssh-ed25519 \S+ testkey root@localhost\n$/,
  );
  assert.equal(existsSync(join(root, 'etc/ssh/ssh_host_rsa_key')), false);
  assert.equal(readFileSync(join(root, 'root/.ssh/authorized_keys'), 'utf8'), `${META_KEY}\n`);
  assert.ok(ctx.lines.some((l) => l.includes('Skipping unrecognized ssh_keys entry: "bogus_private"')));
  // DSA entries left ssh_keys in 24.1: skipped like any name 25.1 does not know.
  assert.ok(ctx.lines.some((l) => l.includes('Skipping unrecognized ssh_keys entry: "dsa_private"')));
  assert.equal(existsSync(join(root, 'etc/ssh/ssh_host_dsa_key')), false);
  assert.ok(
    !ctx.lines.some((l) => l.includes('ssh_host_dsa_key.pub')),
    'no public half is derived for a skipped entry',
  );
});

test('set_passwords: users list (text, hash, RANDOM), legacy list, expire, ssh_pwauth', async (t) => {
  if (!canRun(t)) return;
  const root = copyRootfs(tempDir(t, 'kiln-pw-'));
  const ctx = moduleContext(root);
  await ctx.platform.run(['sh', '-c', 'for u in ann ben cat dan eve; do useradd -m $u; done']);
  const known =
    '$6$rounds=5000$xyz$LVl9R8dY1hXGcmCaaWsWnM06bd9mtfzkTVwyBzjPjhG0JwazIM.pa1HGBNh7wmW1A7zuJALi.AU/K4mfxZkuf0';
  await setPasswords.run(ctx, {
    ssh_pwauth: true,
    chpasswd: {
      expire: true,
      users: [
        { name: 'ann', password: 'annpass', type: 'text' },
        { name: 'ben', password: known },
        { name: 'cat', type: 'RANDOM' },
      ],
      list: ['dan:danpass', 'eve:R'],
    },
  });
  assert.ok(cryptMatchesInRoot(root, 'annpass', shadowHash(root, 'ann')[1] ?? ''));
  assert.ok(cryptMatchesInRoot(root, 'danpass', shadowHash(root, 'dan')[1] ?? ''));
  for (const u of ['ann', 'cat', 'dan', 'eve'])
    assert.match(
      shadowHash(root, u)[1] ?? '',
      /^\$y\$/,
      `${u}'s text password is hashed by chpasswd with bookworm's default, yescrypt`,
    );
  assert.equal(shadowHash(root, 'ben')[1], known);
  const shown = ctx.outputText();
  assert.match(shown, /^Set the following 'random' passwords\n\ncat:[!-~]{20}\neve:[!-~]{20}\n$/);
  const catPw = /cat:(\S+)/.exec(shown)?.[1] ?? '';
  assert.ok(
    cryptMatchesInRoot(root, catPw, shadowHash(root, 'cat')[1] ?? ''),
    'the printed random password is the one set',
  );
  for (const u of ['ann', 'ben', 'cat', 'dan', 'eve'])
    assert.equal(shadowHash(root, u)[2], '0', `${u} must change the password at next login`);
  assert.ok(!ctx.lines.some((l) => l.includes('annpass') || l.includes(catPw)), 'passwords never reach the log');
  assert.equal(
    readFileSync(join(root, 'etc/ssh/sshd_config.d/50-cloud-init.conf'), 'utf8'),
    'PasswordAuthentication yes\n',
  );
  await setPasswords.run(ctx, {
    ssh_pwauth: false,
    chpasswd: { expire: false, users: [{ name: 'ann', password: 'other', type: 'text' }] },
  });
  assert.equal(
    readFileSync(join(root, 'etc/ssh/sshd_config.d/50-cloud-init.conf'), 'utf8'),
    'PasswordAuthentication no\n',
  );
  assert.ok(cryptMatchesInRoot(root, 'other', shadowHash(root, 'ann')[1] ?? ''));
});

test('set_passwords: password for the default user, and a malformed list line names the key', async (t) => {
  if (!canRun(t)) return;
  const root = copyRootfs(tempDir(t, 'kiln-pw-'));
  const ctx = moduleContext(root);
  const cfg = { system_info: SYSTEM_INFO, users: ['default'], password: 'defpass', chpasswd: { expire: false } };
  await usersGroups.run(ctx, cfg);
  await setPasswords.run(ctx, cfg);
  assert.ok(cryptMatchesInRoot(root, 'defpass', shadowHash(root, 'debian')[1] ?? ''));
  assert.notEqual(shadowHash(root, 'debian')[2], '0');
  await assert.rejects(
    setPasswords.run(ctx, { chpasswd: { list: ['nocolon'] } }),
    /set_passwords: chpasswd\.list\[0\]/,
  );
});

test('ssh: keys prepared ahead are used when the config still wants them, each once; the rest are forgotten', async (t) => {
  const root = tempDir(t, 'kiln-ssh-prep-');
  mkdirSync(join(root, 'etc/ssh'), { recursive: true });
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\n');
  const ctx = moduleContext(root);
  // init-local prepares from the config known then; the init stage's final config wants two of the three.
  ssh.prepare?.(ctx, { ssh_genkeytypes: ['ecdsa', 'ed25519', 'rsa'], users: [] });
  const cfg = { ssh_genkeytypes: ['ed25519', 'rsa'], users: [] };
  ssh.prepare?.(ctx, cfg);
  await ssh.run(ctx, cfg);
  ssh.release?.(ctx.platform);
  const files = ['ssh_host_ed25519_key', 'ssh_host_ed25519_key.pub', 'ssh_host_rsa_key', 'ssh_host_rsa_key.pub'];
  assert.deepEqual(readdirSync(join(root, 'etc/ssh')).sort(), files);
  assert.match(readFileSync(join(root, 'etc/ssh/ssh_host_rsa_key.pub'), 'utf8'), /^ssh-rsa AAAA/);
  // A second run in the same process makes fresh keys: a prepared key is used once.
  const first = readFileSync(join(root, 'etc/ssh/ssh_host_ed25519_key.pub'), 'utf8');
  ssh.prepare?.(ctx, cfg);
  await ssh.run(ctx, cfg);
  assert.deepEqual(readdirSync(join(root, 'etc/ssh')).sort(), files);
  assert.notEqual(readFileSync(join(root, 'etc/ssh/ssh_host_ed25519_key.pub'), 'utf8'), first);
  // Keys given in the config: nothing is generated, whatever was prepared before.
  const root2 = tempDir(t, 'kiln-ssh-prep-');
  const ctx2 = moduleContext(root2);
  ssh.prepare?.(ctx2, { users: [] });
  ssh.prepare?.(ctx2, { ssh_keys: { ed25519_public: 'ssh-ed25519 AAAAgiven given@host' }, users: [] });
  await ssh.run(ctx2, { ssh_keys: { ed25519_public: 'ssh-ed25519 AAAAgiven given@host' }, users: [] });
  assert.deepEqual(readdirSync(join(root2, 'etc/ssh')), ['ssh_host_ed25519_key.pub']);
});

test("ssh: the default key types are 25.1's (no DSA since 24.1) on every target, Debian 12 included", async (t) => {
  const { GENERATE_KEY_NAMES } = await import('../../src/modules/ssh');
  assert.deepEqual(GENERATE_KEY_NAMES, ['rsa', 'ecdsa', 'ed25519']);
  for (const distro of [
    { name: 'debian', version: '12' },
    { name: 'ubuntu', version: '24.04' },
  ]) {
    // On the module: no DSA key is made and no ssh-keygen is asked for one.
    const root = tempDir(t);
    mkdirSync(join(root, 'etc/ssh'), { recursive: true });
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\n');
    const ctx = moduleContext(root, { distro: { ...distro, family: 'debian' } });
    await ssh.run(ctx, { users: [] });
    assert.deepEqual(
      readdirSync(join(root, 'etc/ssh'))
        .filter((f) => f.endsWith('_key'))
        .sort(),
      ['ssh_host_ecdsa_key', 'ssh_host_ed25519_key', 'ssh_host_rsa_key'],
      distro.name,
    );
    assert.deepEqual(ctx.problems, []);
  }
});
