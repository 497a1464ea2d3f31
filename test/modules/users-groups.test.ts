import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { usersGroups } from '../../src/modules/users-groups';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { cryptMatchesInRoot } from '../helpers/crypt-in-root';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';
import { moduleContext } from './module-context';

const KEY1 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq1 alice@laptop';
const KEY2 = 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC2 bob@desk';

function passwdRow(root: string, user: string): string[] | undefined {
  return readFileSync(join(root, 'etc/passwd'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`))
    ?.split(':');
}
function shadowRow(root: string, user: string): string[] | undefined {
  return readFileSync(join(root, 'etc/shadow'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`))
    ?.split(':');
}
function groupMembers(root: string, group: string): string[] {
  const row = readFileSync(join(root, 'etc/group'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${group}:`));
  return (row?.split(':')[3] ?? '').split(',').filter(Boolean);
}

const SYSTEM_INFO = {
  default_user: {
    name: 'debian',
    lock_passwd: true,
    gecos: 'Debian',
    groups: ['adm', 'audio', 'cdrom', 'dialout', 'dip', 'floppy', 'plugdev', 'sudo', 'video'],
    sudo: ['ALL=(ALL) NOPASSWD:ALL'],
    shell: '/bin/bash',
  },
};

test('users_groups on a Debian rootfs: default user, groups, passwords, locks, sudo, keys', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
      'needs root, unshare and debootstrap for the Debian rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-users-'));
  const ctx = moduleContext(root, { instance: { publicKeys: [KEY2] } });
  await usersGroups.run(ctx, {
    system_info: SYSTEM_INFO,
    groups: ['admins', { devs: ['root'] }],
    users: [
      'default',
      {
        name: 'alice',
        gecos: 'Alice A',
        groups: 'admins, devs',
        shell: '/bin/bash',
        sudo: 'ALL=(ALL) ALL',
        lock_passwd: false,
        plain_text_passwd: 's3cret!',
        ssh_authorized_keys: [KEY1, KEY1],
        uid: 2001,
        expiredate: '2032-01-02',
      },
      {
        name: 'hashy',
        hashed_passwd:
          '$6$abcdefgh$GtAXg0UM7cj2o5Tgru0G1O8B1cjxFoakVJaIbC0zxA8pBXcZg5bdYJ5tiQSZh10PUbqnfPpBo/YoXgTFpVwSA.',
        lock_passwd: false,
        homedir: '/srv/hashy',
        primary_group: 'hashgrp',
        groups: ['devs'],
      },
      { name: 'svc', system: true, shell: '/usr/sbin/nologin' },
      { name: 'nohome', no_create_home: true },
      { name: 'redir', ssh_redirect_user: true },
    ],
  });
  // default user
  const deb = passwdRow(root, 'debian');
  assert.ok(deb, 'debian user exists');
  assert.equal(deb[4], 'Debian');
  assert.equal(deb[6], '/bin/bash');
  assert.ok(groupMembers(root, 'sudo').includes('debian'));
  assert.ok(groupMembers(root, 'plugdev').includes('debian'));
  assert.match(shadowRow(root, 'debian')?.[1] ?? '', /^!/, 'default user is locked');
  // alice
  const alice = passwdRow(root, 'alice');
  assert.equal(alice?.[2], '2001');
  assert.equal(alice?.[4], 'Alice A');
  assert.ok(groupMembers(root, 'admins').includes('alice'));
  assert.ok(groupMembers(root, 'devs').includes('alice'));
  assert.ok(groupMembers(root, 'devs').includes('root'), 'group members from groups: are added');
  const aliceShadow = shadowRow(root, 'alice') ?? [];
  assert.match(
    aliceShadow[1] ?? '',
    /^\$y\$/,
    "plain_text_passwd is hashed by bookworm's chpasswd, with its default (yescrypt)",
  );
  assert.ok(cryptMatchesInRoot(root, 's3cret!', aliceShadow[1] ?? ''), 'and the hash is of the password given');
  assert.ok(
    ctx.lines.some((l) => /Running command chpasswd in /.test(l)),
    'through chpasswd',
  );
  assert.ok(!ctx.lines.some((l) => /s3cret!/.test(l)), 'the password is never logged');
  assert.ok(
    !ctx.lines.some((l) => /Running command (useradd|groupadd|usermod)/.test(l)),
    'the accounts themselves are written in-process',
  );
  assert.equal(aliceShadow[7], String(Math.floor(Date.UTC(2032, 0, 2) / 86400000)), 'expiredate');
  const ak = join(root, 'home/alice/.ssh/authorized_keys');
  assert.equal(readFileSync(ak, 'utf8'), `${KEY1}\n`);
  assert.equal(statSync(ak).mode & 0o777, 0o600);
  assert.equal(statSync(ak).uid, 2001);
  assert.equal(statSync(join(root, 'home/alice/.ssh')).mode & 0o777, 0o700);
  assert.equal(statSync(join(root, 'home/alice/.ssh')).uid, 2001);
  // hashy
  assert.equal(passwdRow(root, 'hashy')?.[5], '/srv/hashy');
  assert.equal(
    shadowRow(root, 'hashy')?.[1],
    '$6$abcdefgh$GtAXg0UM7cj2o5Tgru0G1O8B1cjxFoakVJaIbC0zxA8pBXcZg5bdYJ5tiQSZh10PUbqnfPpBo/YoXgTFpVwSA.',
  );
  const hashgrp = readFileSync(join(root, 'etc/group'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('hashgrp:'))
    ?.split(':');
  assert.equal(passwdRow(root, 'hashy')?.[3], hashgrp?.[2], 'primary_group is created and used');
  // system and no-home users
  assert.ok(Number(passwdRow(root, 'svc')?.[2]) < 1000, 'system user gets a system uid');
  assert.equal(spawnSync('test', ['-e', join(root, 'home/svc')]).status, 1);
  assert.equal(spawnSync('test', ['-e', join(root, 'home/nohome')]).status, 1);
  // ssh_redirect_user puts the cloud keys with the redirect options
  const redir = readFileSync(join(root, 'home/redir/.ssh/authorized_keys'), 'utf8');
  assert.match(
    redir,
    /^no-port-forwarding,.*Please login as the user \\"debian\\" rather than the user \\"redir\\".*ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC2 bob@desk\n$/,
  );
  // sudoers: valid for visudo; the default user comes last, as in cloud-init (it is re-inserted after the others)
  const sudoers = readFileSync(join(root, 'etc/sudoers.d/90-cloud-init-users'), 'utf8');
  assert.match(
    sudoers,
    /^# Created by cloud-init v\. 25\.1\.4 on .+\n\n# User rules for alice\nalice ALL=\(ALL\) ALL\n\n# User rules for debian\ndebian ALL=\(ALL\) NOPASSWD:ALL\n$/,
  );
  assert.equal(statSync(join(root, 'etc/sudoers.d/90-cloud-init-users')).mode & 0o777, 0o440);
  const check = await ctx.platform.run(['visudo', '-cf', '/etc/sudoers.d/90-cloud-init-users'], { allowFailure: true });
  assert.equal(check.code, 0, check.stdout + check.stderr);
  const checkAll = await ctx.platform.run(['visudo', '-c'], { allowFailure: true });
  assert.equal(checkAll.code, 0, checkAll.stdout + checkAll.stderr);

  // A second run (existing users) changes nothing it should not, and does not duplicate keys.
  await usersGroups.run(moduleContext(root), {
    system_info: SYSTEM_INFO,
    users: [{ name: 'alice', ssh_authorized_keys: [KEY1], lock_passwd: false }],
  });
  assert.equal(readFileSync(ak, 'utf8'), `${KEY1}\n`);
});

test('users_groups rejects keys that need a home together with no_create_home', async (t) => {
  const root = tempDir(t);
  await assert.rejects(
    usersGroups.run(moduleContext(root), { users: [{ name: 'x', no_create_home: true, ssh_authorized_keys: [KEY1] }] }),
    /users_groups: Not creating user x/,
  );
});

test('users_groups: missing groups are created for a user unless create_groups is false', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
      'needs root, unshare and debootstrap for the Debian rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-users-'));
  const hasGroup = (g: string) =>
    readFileSync(join(root, 'etc/group'), 'utf8')
      .split('\n')
      .some((l) => l.startsWith(`${g}:`));
  await usersGroups.run(moduleContext(root), { users: [{ name: 'carol', groups: ['made-for-carol'] }] });
  assert.ok(hasGroup('made-for-carol'));
  assert.deepEqual(groupMembers(root, 'made-for-carol'), ['carol']);
  // As in cloud-init, useradd is then left to fail on the group that does not exist, and the error names the user.
  await assert.rejects(
    usersGroups.run(moduleContext(root), { users: [{ name: 'dave', groups: ['not-made'], create_groups: false }] }),
    /users: 'dave'/,
  );
  assert.equal(hasGroup('not-made'), false);
  assert.equal(passwdRow(root, 'dave'), undefined);
});

/** The commands a module ran, from the platform's debug lines (first two words: the tool and its first argument). */
function commandsRun(lines: string[]): string[] {
  return lines.map((l) => /Running command (\S+(?: -\w)?)/.exec(l)?.[1]).filter((c): c is string => c !== undefined);
}

const TOOLS_CFG = (writer?: string) => ({
  ...(writer ? { system_info: { kiln_account_writer: writer } } : {}),
  groups: ['team'],
  users: [{ name: 'tim', groups: ['team'], plain_text_passwd: 'pw-of-tim' }],
});

test('system_info.kiln_account_writer: tools leaves every account change to the distro tools, as cloud-init does', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
      'needs root, unshare and debootstrap for the Debian rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-users-tools-'));
  const ctx = moduleContext(root);
  await usersGroups.run(ctx, TOOLS_CFG('tools'));
  assert.deepEqual(commandsRun(ctx.lines), ['groupadd', 'useradd', 'chpasswd', 'passwd -l']);
  assert.deepEqual(groupMembers(root, 'team'), ['tim']);
  const shadow = shadowRow(root, 'tim') ?? [];
  assert.match(shadow[1] ?? '', /^!\$y\$/, 'hashed by chpasswd, then locked by passwd -l');
  assert.ok(cryptMatchesInRoot(root, 'pw-of-tim', (shadow[1] ?? '').slice(1)));

  // The default is kiln's own writer: only chpasswd (plain text) runs.
  const root2 = copyRootfs(tempDir(t, 'kiln-users-inproc-'));
  const ctx2 = moduleContext(root2);
  await usersGroups.run(ctx2, TOOLS_CFG('in-process'));
  assert.deepEqual(commandsRun(ctx2.lines), ['chpasswd']);
  assert.deepEqual(groupMembers(root2, 'team'), ['tim']);
  assert.match(shadowRow(root2, 'tim')?.[1] ?? '', /^!\$y\$/);
});

test('without libc at hand (no koffi) for /etc/.pwd.lock, kiln falls back to the distro tools', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
      'needs root, unshare and debootstrap for the Debian rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-users-nokoffi-'));
  const base = moduleContext(root);
  const ctx = { ...base, platform: new LinuxPlatform({ root, log: base.log, isolateNetwork: true }) };
  await usersGroups.run(ctx, TOOLS_CFG());
  assert.deepEqual(commandsRun(base.lines), ['groupadd', 'useradd', 'chpasswd', 'passwd -l']);
  assert.deepEqual(groupMembers(root, 'team'), ['tim']);
});

test('system_info.kiln_account_writer takes in-process or tools only', async (t) => {
  const root = tempDir(t);
  await assert.rejects(
    usersGroups.run(moduleContext(root), TOOLS_CFG('useradd')),
    /system_info\.kiln_account_writer must be 'in-process' or 'tools', not "useradd"/,
  );
});

test('users_groups: doas rules go to /etc/doas.conf (0440, once per block), invalid ones write nothing; snapuser runs snap create-user', async (t) => {
  const { mkdirSync, writeFileSync, existsSync } = await import('node:fs');
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(
    join(root, 'etc/passwd'),
    'root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\nbob:x:1001:1001::/home/bob:/bin/sh\n',
  );
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\nalice:x:1000:\nbob:x:1001:\nwheel:x:10:\n');
  // Blank passwords: lock_passwd false leaves them as they are (25.1), so no account tool runs in this bare root.
  writeFileSync(
    join(root, 'etc/shadow'),
    'root:*:19000:0:99999:7:::\nalice:!:19000:0:99999:7:::\nbob:!:19000:0:99999:7:::\n',
  );
  const ctx = moduleContext(root);
  const users = [
    {
      name: 'alice',
      lock_passwd: false,
      doas: ['permit nopass alice', 'permit persist alice as root cmd /usr/bin/apt'],
    },
    { name: 'bob', lock_passwd: false, doas: ['permit nopass alice'] },
  ];
  await usersGroups.run(ctx, { users });
  await usersGroups.run(ctx, { users: users.slice(0, 1) });
  const conf = readFileSync(join(root, 'etc/doas.conf'), 'utf8');
  assert.equal(statSync(join(root, 'etc/doas.conf')).mode & 0o777, 0o440);
  assert.match(
    conf,
    /^# Created by cloud-init v\. .* on .*\n\n# cloud-init User rules for alice\npermit nopass alice\npermit persist alice as root cmd \/usr\/bin\/apt\n$/,
  );
  assert.ok(
    ctx.lines.some((l) =>
      l.includes(`Invalid doas rule "permit nopass alice" for user 'bob', not writing any doas rules for user!`),
    ),
  );
  // snapuser: snapd makes the account; nothing else of the entry is applied.
  const { dryContext } = await import('./late-context');
  const snap = dryContext(tempDir(t));
  const run = snap.platform.run.bind(snap.platform);
  snap.platform.run = async (argv, opts) =>
    argv[0] === 'snap' ? { code: 0, stdout: '{"username":"joe"}\n', stderr: '' } : run(argv, opts);
  await usersGroups.run(snap, {
    users: [{ name: 'joe', snapuser: 'joe@example.com', known: true, sudo: 'ALL=(ALL) ALL' }],
  });
  assert.deepEqual(snap.commands(), []);
  assert.ok(snap.lines.some((l) => l.includes('snap create-user returned: {"username":"joe"}')));
  assert.equal(existsSync(join(snap.platform.root, 'etc/sudoers.d')), false);
  const failing = dryContext(tempDir(t));
  failing.platform.run = async () => ({ code: 1, stdout: '', stderr: 'error: cannot create user: no such account\n' });
  await assert.rejects(
    usersGroups.run(failing, { users: [{ name: 'x', snapuser: 'x@example.com' }] }),
    /Failed to create snap user x: 'snap create-user --sudoer --json x@example\.com' exited with code 1: error: cannot create user/,
  );
});

test('lock_passwd: false as 25.1: a blank existing password is left with a warning; a given or existing password is unlocked', async (t) => {
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(
    join(root, 'etc/passwd'),
    'root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\nbob:x:1001:1001::/home/bob:/bin/sh\n',
  );
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\nalice:x:1000:\nbob:x:1001:\n');
  writeFileSync(
    join(root, 'etc/shadow'),
    'root:*:19000:0:99999:7:::\nalice:!:19000:0:99999:7:::\nbob:$6$salt$hash:19000:0:99999:7:::\n',
  );
  const ctx = moduleContext(root);
  await usersGroups.run(ctx, {
    users: [
      { name: 'alice', lock_passwd: false },
      { name: 'bob', lock_passwd: false },
    ],
  });
  assert.deepEqual(ctx.problems, [
    "WARNING: Not unlocking blank password for existing user alice. 'lock_passwd: false' present in user-data but no existing password set and no 'plain_text_passwd'/'hashed_passwd' provided in user-data",
  ]);
  // bob has a password behind no lock: unlocked (nothing to take off); a locked one loses its '!' (24.3 and later).
  writeFileSync(
    join(root, 'etc/shadow'),
    'root:*:19000:0:99999:7:::\nalice:!:19000:0:99999:7:::\nbob:!$6$salt$hash:19000:0:99999:7:::\n',
  );
  const again = moduleContext(root);
  await usersGroups.run(again, {
    users: [
      { name: 'bob', lock_passwd: false },
      { name: 'alice', lock_passwd: false, plain_text_passwd: '' },
    ],
  });
  const shadow = readFileSync(join(root, 'etc/shadow'), 'utf8');
  assert.match(shadow, /^bob:\$6\$salt\$hash:/m, 'the lock taken off an existing password');
  assert.match(
    shadow,
    /^alice::/m,
    'an empty plain_text_passwd unlocks to the empty password, as passwd -u then passwd -d',
  );
  assert.deepEqual(again.problems, []);
  // passwd for an existing user is ignored, with 25.1's warning.
  const ignored = moduleContext(root);
  await usersGroups.run(ignored, { users: [{ name: 'bob', passwd: '$6$z$z' }] });
  assert.deepEqual(ignored.problems, ["WARNING: 'passwd' in user-data is ignored for existing user bob"]);
});

test("sudo: false is deprecated at the DEPRECATED level in 25.1's words", async (t) => {
  const ctx = dryContext(tempDir(t));
  await usersGroups.run(ctx, { users: [{ name: 'sam', sudo: false }] });
  assert.ok(
    ctx.lines.some(
      (l) =>
        l.includes('DEPRECATED') &&
        l.includes(
          "The value of 'false' in user sam's 'sudo' config is deprecated in 22.2 and scheduled to be removed in 27.2. Use 'null' instead.",
        ),
    ),
    ctx.lines.join('\n'),
  );
});

test("a new user's missing groups are made in 25.1's order: the listed ones first, the primary group last", async (t) => {
  const ctx = dryContext(tempDir(t));
  await usersGroups.run(ctx, { users: [{ name: 'pat', primary_group: 'pg', groups: ['g1', 'g2'] }] });
  assert.deepEqual(
    ctx.commands().filter((c) => c.startsWith('groupadd')),
    ['groupadd g1', 'groupadd g2', 'groupadd pg'],
  );
});
