// A dry run plans the accounts its useradd/groupadd/usermod would make, so the modules after them find the account.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../../src/main';
import { planAccountCommand, type PlannedFiles } from '../../../src/platform/linux/accounts/dry-run-accounts';
import { tempDir } from '../../helpers/temp';

function plannedFiles(initial: Record<string, string>): PlannedFiles & { files: Map<string, string> } {
  const files = new Map(Object.entries(initial));
  return { files, readTextIfExists: async (p) => files.get(p), plan: (p, text) => void files.set(p, text) };
}

const PASSWD =
  'root:x:0:0:root:/root:/bin/bash\nsys:x:3:3:sys:/dev:/usr/sbin/nologin\nold:x:1000:1000::/home/old:/bin/bash\n';
const GROUP = 'root:x:0:\nsudo:x:27:\nold:x:1000:\nusers:x:100:\n';

test('useradd as kiln builds it: ids as shadow-utils picks them, its own group, home, shell, supplementary groups, password', async () => {
  const f = plannedFiles({
    '/etc/passwd': PASSWD,
    '/etc/group': GROUP,
    '/etc/shadow': 'root:*:1::::::\n',
    '/etc/default/useradd': 'SHELL=/bin/bash\n',
  });
  assert.equal(
    await planAccountCommand(
      ['useradd', 'foo', '--comment', 'Foo', '--groups', 'sudo', '--password', '$6$x$y', '-m'],
      f,
    ),
    true,
  );
  assert.match(f.files.get('/etc/passwd') ?? '', /^foo:x:1001:1001:Foo:\/home\/foo:\/bin\/bash$/m);
  assert.match(f.files.get('/etc/group') ?? '', /^foo:x:1001:$/m);
  assert.match(f.files.get('/etc/group') ?? '', /^sudo:x:27:foo$/m);
  assert.match(f.files.get('/etc/shadow') ?? '', /^foo:\$6\$x\$y:/m);
  // --uid, --gid (a named group), --home, --shell as given; --system counts down below 1000; no user group.
  assert.equal(
    await planAccountCommand(
      ['useradd', 'bar', '--home', '/srv/bar', '--gid', 'users', '--uid', '2000', '--shell', '/bin/zsh', '-m'],
      f,
    ),
    true,
  );
  assert.match(f.files.get('/etc/passwd') ?? '', /^bar:x:2000:100::\/srv\/bar:\/bin\/zsh$/m);
  assert.equal(await planAccountCommand(['useradd', 'svc', '--system', '-M'], f), true);
  assert.match(f.files.get('/etc/passwd') ?? '', /^svc:x:999:999::/m);
  assert.equal(await planAccountCommand(['useradd', 'lone', '--no-user-group', '-m'], f), true);
  assert.match(f.files.get('/etc/passwd') ?? '', /^lone:x:2001:100::/m);
  // An existing user, or anything not kiln's account commands, plans nothing.
  assert.equal(await planAccountCommand(['useradd', 'old', '-m'], f), false);
  assert.equal(await planAccountCommand(['chpasswd', '-e'], f), false);
});

test('groupadd and usermod -a -G as kiln builds them', async () => {
  const f = plannedFiles({ '/etc/passwd': PASSWD, '/etc/group': GROUP });
  assert.equal(await planAccountCommand(['groupadd', 'devs'], f), true);
  assert.equal(await planAccountCommand(['groupadd', '--system', 'daemons'], f), true);
  assert.match(f.files.get('/etc/group') ?? '', /^devs:x:1001:\ndaemons:x:999:$/m);
  assert.equal(await planAccountCommand(['usermod', '-a', '-G', 'devs,sudo', 'old'], f), true);
  assert.match(f.files.get('/etc/group') ?? '', /^sudo:x:27:old$/m);
  assert.match(f.files.get('/etc/group') ?? '', /^devs:x:1001:old$/m);
  assert.equal(await planAccountCommand(['groupadd', 'devs'], f), false);
});

function put(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

test('--dry-run of a boot that adds a user with keys and sudo: no module fails for want of the account, the keys are planned with its ids, nothing is written', async (t) => {
  const root = tempDir(t);
  put(root, '/etc/os-release', 'ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n');
  put(root, '/etc/passwd', PASSWD);
  put(root, '/etc/group', GROUP);
  put(root, '/etc/shadow', 'root:*:1::::::\nold:*:1::::::\n');
  put(
    root,
    '/etc/cloud/cloud.cfg.d/50-test.cfg',
    'datasource_list: [NoCloud]\ncloud_init_modules: [users_groups, ssh]\ncloud_config_modules: []\ncloud_final_modules: [ssh_authkey_fingerprints]\nssh_genkeytypes: []\n',
  );
  put(root, '/var/lib/cloud/seed/nocloud/meta-data', 'instance-id: i-dry\n');
  put(
    root,
    '/var/lib/cloud/seed/nocloud/user-data',
    '#cloud-config\nusers:\n  - name: foo\n    sudo: ALL=(ALL) NOPASSWD:ALL\n    ssh_authorized_keys: [ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl foo@x]\n',
  );
  const before = readdirSync(root, { recursive: true }).sort();
  let out = '';
  let err = '';
  await main({
    argv: ['--root', root, '--dry-run', '--all-stages'],
    argv0: 'cloud-init',
    env: {},
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
  });
  assert.doesNotMatch(
    err + out,
    /Running module (users_groups|ssh|ssh_authkey_fingerprints) failed|does not exist in the target's \/etc\/passwd|not in the target's \/etc\/passwd/,
  );
  assert.match(out, /^ {2}would run useradd foo -m$/m);
  assert.match(out, /^ {2}would write \/home\/foo\/\.ssh\/authorized_keys \(\d+ bytes, mode 0600, owner 1001:1001\)$/m);
  assert.deepEqual(readdirSync(root, { recursive: true }).sort(), before, 'the dry run wrote nothing');
});
