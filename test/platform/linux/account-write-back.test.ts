// The account write-back: the changes of a batch (a module) are held and written once, each file and its backup
// as the last change would leave them; outside a batch each change is written at once; a command or a write of
// the files has the held changes written first; and a file another process changed meanwhile is not overwritten.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { NativeAccounts } from '../../../src/platform/linux/accounts/native-accounts';
import { LinuxPlatform } from '../../../src/platform/linux/linux-platform';
import { testKoffi } from '../../helpers/koffi';
import { Logger } from '../../../src/util/log';

const PASSWD = 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n';
const SHADOW = 'root:*:19800:0:99999:7:::\nnobody:*:19800:0:99999:7:::\n';
const GROUP = 'root:x:0:\nsudo:x:27:\nusers:x:100:\nnogroup:x:65534:\n';
const GSHADOW = 'root:*::\nsudo:*::\nusers:*::\nnogroup:*::\n';
const LOGIN_DEFS =
  'UID_MIN 1000\nUID_MAX 60000\nSYS_UID_MIN 100\nSYS_UID_MAX 999\nGID_MIN 1000\nGID_MAX 60000\nSYS_GID_MIN 100\nSYS_GID_MAX 999\nUSERGROUPS_ENAB yes\n';
const LONG_AGO = new Date('2024-01-02T03:04:05Z');

/** A root with small account files (dated LONG_AGO) and the platform on it. */
function accountRoot(t: TestContext): { root: string; platform: LinuxPlatform; accounts: NativeAccounts } {
  const root = mkdtempSync(join(tmpdir(), 'kiln-write-back-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'etc'));
  for (const [name, text] of Object.entries({
    passwd: PASSWD,
    shadow: SHADOW,
    group: GROUP,
    gshadow: GSHADOW,
    subuid: '',
    subgid: '',
    'login.defs': LOGIN_DEFS,
  })) {
    writeFileSync(join(root, 'etc', name), text, { mode: name.includes('shadow') ? 0o640 : 0o644 });
    utimesSync(join(root, 'etc', name), LONG_AGO, LONG_AGO);
  }
  const platform = new LinuxPlatform({ root, log: new Logger().for('test.ts'), loadKoffi: testKoffi });
  return { root, platform, accounts: new NativeAccounts(platform, 'debian') };
}

const etc = (root: string, name: string) => readFileSync(join(root, 'etc', name), 'utf8');

test('the changes of a batch are written once: each file as the last change leaves it, its backup as before that change', async (t) => {
  const { root, platform, accounts } = accountRoot(t);
  await platform.batch(async () => {
    assert.ok(await accounts.addGroup('admins', false));
    assert.ok(await accounts.addUser({ name: 'alice', groups: ['admins'], shell: '/bin/bash', noCreateHome: true }));
    assert.ok(await accounts.lockPassword('alice'));
    assert.equal(etc(root, 'passwd'), PASSWD, 'nothing on disk before the batch ends');
    assert.match(
      await platform.readText('/etc/group'),
      /^admins:x:1000:alice$/m,
      'reads through the platform see the held changes',
    );
  });
  assert.match(etc(root, 'passwd'), /^alice:x:1000:1001::\/home\/alice:\/bin\/bash$/m);
  assert.match(etc(root, 'shadow'), /^alice:!/m);
  // passwd changed once (useradd): its backup is the original, with the original times.
  assert.equal(etc(root, 'passwd-'), PASSWD);
  assert.equal(statSync(join(root, 'etc/passwd-')).mtime.getTime(), LONG_AGO.getTime());
  // shadow changed twice (useradd, then the lock): its backup is the content after useradd, dated after it.
  assert.match(etc(root, 'shadow-'), /^alice:!:/m);
  assert.ok(statSync(join(root, 'etc/shadow-')).mtime.getTime() > LONG_AGO.getTime());
  assert.equal(statSync(join(root, 'etc/shadow')).mode & 0o777, 0o640, 'the file keeps its mode');
});

test('outside a batch each change is written at once, and a failing batch keeps the changes made before the failure', async (t) => {
  const { root, platform, accounts } = accountRoot(t);
  assert.ok(await accounts.addGroup('admins', false));
  assert.match(etc(root, 'group'), /^admins:/m);
  await assert.rejects(
    platform.batch(async () => {
      assert.ok(await accounts.addGroup('devs', false));
      throw new Error('the module failed');
    }),
    /the module failed/,
  );
  assert.match(etc(root, 'group'), /^devs:/m);
});

test('a command, or a write of an account file, sees the held changes on disk first', async (t) => {
  const { root, platform, accounts } = accountRoot(t);
  await platform.batch(async () => {
    assert.ok(await accounts.addGroup('admins', false));
    await platform.run(['/no/such/program'], { allowFailure: true });
    assert.match(etc(root, 'group'), /^admins:/m, 'written before the command ran');
    assert.ok(await accounts.addGroup('devs', false));
    await platform.writeFile('/etc/group', `${await platform.readText('/etc/group')}extra:x:3000:\n`);
    assert.match(etc(root, 'group'), /^devs:x:1001:\nextra:x:3000:$/m, 'the held change went first, then the write');
  });
});

test('a file another process changed since the change was held is not overwritten', async (t) => {
  const { root, platform, accounts } = accountRoot(t);
  await assert.rejects(
    platform.batch(async () => {
      assert.ok(await accounts.addGroup('admins', false));
      writeFileSync(join(root, 'etc/group'), `${GROUP}theirs:x:4000:\n`);
    }),
    /\/etc\/group was changed by another process/,
  );
  assert.match(etc(root, 'group'), /^theirs:/m);
  assert.doesNotMatch(etc(root, 'group'), /^admins:/m);
  assert.equal(etc(root, 'gshadow'), GSHADOW, 'no file of the change was written');
});
