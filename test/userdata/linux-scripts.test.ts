// User-data scripts really run in a sandbox Debian root: sh, python3, boothooks, failures, a missing interpreter.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { cleanName, runBoothooks, runScriptsIn, scriptDir, writeUserScripts } from '../../src/userdata/linux-scripts';
import { runPartHandlers } from '../../src/userdata/part-handlers';
import { processUserData } from '../../src/userdata/process-user-data';
import { Logger } from '../../src/util/log';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const USER_DATA = `Content-Type: multipart/mixed; boundary="S"
MIME-Version: 1.0

--S
Content-Type: text/x-shellscript
Content-Disposition: attachment; filename="10-sh.sh"

#!/bin/sh
echo "sh ran as $(id -u)" > /root/sh-ran
echo to-output-log
--S
Content-Type: text/x-shellscript
Content-Disposition: attachment; filename="20-fails.sh"

#!/bin/sh
echo failing >&2
exit 3
--S
Content-Type: text/x-shellscript
Content-Disposition: attachment; filename="30-python.py"

#!/usr/bin/env python3
import sys
open("/root/py-ran", "w").write("python %d.%d" % sys.version_info[:2])
--S
Content-Type: text/x-shellscript-per-boot
Content-Disposition: attachment; filename="boot.sh"

#!/bin/sh
touch /root/per-boot-ran
--S
Content-Type: text/cloud-boothook

#cloud-boothook
#!/bin/sh
echo "$INSTANCE_ID" > /root/boothook-iid
--S--
`;

test('scripts land in cloud-init folders with mode 0700 and run in the target root; a failure does not stop the rest', async (t) => {
  if (!need(t, isRoot(), 'needs root (chroot and namespaces)')) return;
  if (
    !need(
      t,
      hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs unshare, chroot and debootstrap',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-ud-root-'));
  const platform = new LinuxPlatform({ root, log: new Logger().for('test.ts') });
  const processed = await processUserData({ userData: USER_DATA, vendorData: '#!/bin/sh\ntouch /root/vendor-ran\n' });
  assert.deepEqual(processed.errors, []);
  const ctx = { platform, instanceId: 'iid-sandbox-1' };

  const hooks = await runBoothooks(ctx, processed.boothooks);
  assert.equal(hooks.length, 1);
  assert.equal(hooks[0]?.ok, true, hooks[0]?.error);
  assert.equal(readFileSync(join(root, 'root/boothook-iid'), 'utf8').trim(), 'iid-sandbox-1');
  assert.ok(existsSync(join(root, 'var/lib/cloud/instances/iid-sandbox-1/boothooks/part-005')));

  const written = await writeUserScripts(ctx, processed.scripts);
  assert.deepEqual(written, [
    '/var/lib/cloud/instances/iid-sandbox-1/scripts/vendor/part-001',
    '/var/lib/cloud/instances/iid-sandbox-1/scripts/10-sh.sh',
    '/var/lib/cloud/instances/iid-sandbox-1/scripts/20-fails.sh',
    '/var/lib/cloud/instances/iid-sandbox-1/scripts/30-python.py',
    '/var/lib/cloud/scripts/per-boot/boot.sh',
  ]);
  for (const w of written) assert.equal(statSync(join(root, w)).mode & 0o777, 0o700, w);

  const user = await runScriptsIn(ctx, '/var/lib/cloud/instances/iid-sandbox-1/scripts');
  assert.deepEqual(
    user.map((o) => [o.name, o.code]),
    [
      ['10-sh.sh', 0],
      ['20-fails.sh', 3],
      ['30-python.py', 0],
    ],
    'the vendor folder is skipped, the failure recorded, the next still runs',
  );
  assert.match(user[1]?.error ?? '', /20-fails\.sh failed with exit code 3: failing/);
  assert.equal(readFileSync(join(root, 'root/sh-ran'), 'utf8').trim(), 'sh ran as 0');
  assert.match(readFileSync(join(root, 'root/py-ran'), 'utf8'), /^python 3\.\d+$/);
  const vendor = await runScriptsIn(ctx, '/var/lib/cloud/instances/iid-sandbox-1/scripts/vendor');
  assert.deepEqual(
    vendor.map((o) => o.ok),
    [true],
  );
  assert.ok(existsSync(join(root, 'root/vendor-ran')));
  const boot = await runScriptsIn(ctx, '/var/lib/cloud/scripts/per-boot');
  assert.deepEqual(
    boot.map((o) => o.ok),
    [true],
  );
  assert.ok(existsSync(join(root, 'root/per-boot-ran')));
  assert.deepEqual(await runScriptsIn(ctx, '/var/lib/cloud/scripts/per-once'), [], 'a missing folder runs nothing');

  const outputLog = readFileSync(join(root, 'var/log/cloud-init-output.log'), 'utf8');
  assert.match(outputLog, /to-output-log/);
  assert.match(outputLog, /failing/);

  // The same python script on a root without python3 fails with a clear message; sh scripts still run.
  for (const dir of ['usr/bin', 'usr/local/bin']) {
    for (const f of readdirSync(join(root, dir))) if (/^python3/.test(f)) rmSync(join(root, dir, f), { force: true });
  }
  rmSync(join(root, 'root/sh-ran'));
  const again = await runScriptsIn(ctx, '/var/lib/cloud/instances/iid-sandbox-1/scripts');
  assert.deepEqual(
    again.map((o) => o.ok),
    [true, false, false],
  );
  assert.equal(again[2]?.code, -1);
  assert.match(
    again[2]?.error ?? '',
    /30-python\.py cannot run: its interpreter 'python3' \(from '#!\/usr\/bin\/env python3'\) is not installed in the target root/,
  );
  assert.ok(existsSync(join(root, 'root/sh-ran')));
});

test('script names from user data cannot leave their folder', () => {
  assert.equal(cleanName('../../etc/cron.d/x'), '.._.._etc_cron.d_x');
  assert.equal(cleanName('..'), '_');
  assert.equal(cleanName('a\nb'), 'ab');
  assert.equal(
    scriptDir({ source: 'user', frequency: 'per-instance', frequencyFromType: false, kind: 'script' }, '../i'),
    '/var/lib/cloud/instances/.._i/scripts',
  );
  assert.equal(
    scriptDir({ source: 'vendor2', frequency: 'per-instance', frequencyFromType: false, kind: 'script' }, 'i-1'),
    '/var/lib/cloud/instances/i-1/scripts/vendor',
  );
  assert.equal(
    scriptDir({ source: 'user', frequency: 'per-once', frequencyFromType: true, kind: 'script' }, 'i-1'),
    '/var/lib/cloud/scripts/per-once',
  );
  assert.equal(
    scriptDir({ source: 'user', frequency: 'per-boot', frequencyFromType: false, kind: 'boothook' }, 'i-1'),
    '/var/lib/cloud/instances/i-1/boothooks',
  );
});

const WITH_HANDLERS = `Content-Type: multipart/mixed; boundary="H"
MIME-Version: 1.0

--H
Content-Type: text/x-custom
Content-Disposition: attachment; filename="before.txt"

too early for the handler
--H
Content-Type: text/part-handler
Content-Disposition: attachment; filename="broken.py"

#part-handler
raise RuntimeError("broken on purpose")
--H
Content-Type: text/part-handler
Content-Disposition: attachment; filename="custom.py"

#part-handler
handler_version = 2
def list_types():
    return ["text/x-custom"]
def handle_part(data, ctype, filename, payload, frequency):
    with open("/root/handler.log", "a") as f:
        f.write("%s %s %s %s\\n" % (ctype, filename, frequency, (payload or "").strip()))
--H
Content-Type: text/x-custom
Content-Disposition: attachment; filename="after.txt"

handled by custom.py
--H--
`;

test('#part-handler Python runs in the target root and gets the later parts of its types', async (t) => {
  if (!need(t, isRoot(), 'needs root (chroot and namespaces)')) return;
  if (
    !need(
      t,
      hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs unshare, chroot and debootstrap',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-ud-ph-'));
  const platform = new LinuxPlatform({ root, log: new Logger().for('test.ts') });
  const processed = await processUserData({ userData: WITH_HANDLERS });
  assert.deepEqual(processed.errors, []);
  assert.deepEqual(
    processed.partHandlers.map((h) => h.name),
    ['broken.py', 'custom.py'],
  );
  const outcomes = await runPartHandlers({ platform, instanceId: 'iid-ph' }, processed);
  assert.equal(outcomes[0]?.ok, false);
  assert.match(outcomes[0]?.error ?? '', /part handler broken\.py failed \(exit 1\): RuntimeError: broken on purpose/);
  assert.deepEqual(outcomes[1], { name: 'custom.py', types: ['text/x-custom'], handled: ['after.txt'], ok: true });
  assert.equal(
    readFileSync(join(root, 'root/handler.log'), 'utf8'),
    [
      '__begin__ None once-per-instance ',
      'text/x-custom after.txt once-per-instance handled by custom.py',
      '__end__ None once-per-instance ',
      '',
    ].join('\n'),
  );
  assert.ok(existsSync(join(root, 'var/lib/cloud/instances/iid-ph/handlers/part-handler-001.py')));
});
