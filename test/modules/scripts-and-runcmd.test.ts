// runcmd and the scripts_* modules: planned order in a dry run, real runs in the Debian rootfs.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ModuleError } from '../../src/modules/module';
import { runcmdModule } from '../../src/modules/runcmd';
import { scriptsPerBootModule } from '../../src/modules/scripts-per-boot';
import { scriptsPerInstanceModule } from '../../src/modules/scripts-per-instance';
import { scriptsPerOnceModule } from '../../src/modules/scripts-per-once';
import { scriptsUserModule } from '../../src/modules/scripts-user';
import { scriptsVendorModule, vendorPrefix } from '../../src/modules/scripts-vendor';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { dryContext, linkInstanceDir } from './late-context';
import { moduleContext } from './module-context';

test('runcmd writes instances/<iid>/scripts/runcmd (0700) with strings as-is and lists single-quoted', async (t) => {
  const root = tempDir(t);
  await runcmdModule.run(moduleContext(root), { runcmd: ['echo one', ['sh', '-c', "echo 'two' > /x"], null, 'ls'] });
  const path = join(root, 'var/lib/cloud/instances/iid-test-1/scripts/runcmd');
  assert.equal(readFileSync(path, 'utf8'), `#!/bin/sh\necho one\n'sh' '-c' 'echo '\\''two'\\'' > /x'\nls\n`);
  assert.equal(statSync(path).mode & 0o777, 0o700);
  assert.equal(runcmdModule.stage, 'config');
  assert.equal(runcmdModule.frequency, 'once-per-instance');
});

test('runcmd rejects a mapping with an error naming the key', async (t) => {
  const root = tempDir(t);
  await assert.rejects(
    runcmdModule.run(moduleContext(root), { runcmd: { a: 1 } }),
    (e: Error) => e instanceof ModuleError && /runcmd/.test(e.message),
  );
});

test("runcmd writes each word util.shellify str()s: [sleep, 10] is 'sleep' '10', true is 'True'", async (t) => {
  const root = tempDir(t);
  await runcmdModule.run(moduleContext(root), { runcmd: [['sleep', 10], ['echo', true, null, 1.5], 'ls'] });
  const path = join(root, 'var/lib/cloud/instances/iid-test-1/scripts/runcmd');
  assert.equal(readFileSync(path, 'utf8'), "#!/bin/sh\n'sleep' '10'\n'echo' 'True' 'None' '1.5'\nls\n");
  await assert.rejects(runcmdModule.run(moduleContext(root), { runcmd: 'ls' }), {
    name: 'ModuleError',
    message: "runcmd: Failed to shellify runcmd: Input to shellify was type 'str'. Expected list or tuple.",
  });
});

function script(root: string, path: string, body: string, mode = 0o755): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), body);
  chmodSync(join(root, path), mode);
}

test('scripts_* plan executables in sorted order, skip non-executables and folders, record a failure and go on', async (t) => {
  const root = tempDir(t);
  linkInstanceDir(root);
  script(root, '/var/lib/cloud/instances/iid-test-1/scripts/b-second', '#!/bin/sh\n');
  script(root, '/var/lib/cloud/instances/iid-test-1/scripts/a-first', '#!/bin/sh\n');
  script(root, '/var/lib/cloud/instances/iid-test-1/scripts/c-not-exec', '#!/bin/sh\n', 0o644);
  mkdirSync(join(root, 'var/lib/cloud/instances/iid-test-1/scripts/vendor'), { recursive: true });
  const ctx = dryContext(root);
  await scriptsUserModule.run(ctx, {});
  assert.deepEqual(ctx.commands(), [
    '/var/lib/cloud/instance/scripts/a-first',
    '/var/lib/cloud/instance/scripts/b-second',
  ]);
  // 25.1's runparts warns about the regular file it skips, and notes the folder at DEBUG.
  assert.ok(
    ctx.lines.some(
      (l) =>
        /WARN/.test(l) &&
        l.includes(
          'skipping /var/lib/cloud/instance/scripts/c-not-exec as its not executable or the underlying file system ' +
            'is mounted without executable permissions.',
        ),
    ),
    ctx.lines.join('\n'),
  );
  assert.ok(ctx.lines.some((l) => l.includes('Not executing special file [/var/lib/cloud/instance/scripts/vendor]')));

  script(root, '/var/lib/cloud/scripts/per-boot/10-x', '#!/bin/sh\n');
  script(root, '/var/lib/cloud/scripts/per-instance/10-y', '#!/bin/sh\n');
  script(root, '/var/lib/cloud/scripts/per-once/10-z', '#!/bin/sh\n');
  const ctx2 = dryContext(root);
  await scriptsPerBootModule.run(ctx2, {});
  await scriptsPerInstanceModule.run(ctx2, {});
  await scriptsPerOnceModule.run(ctx2, {});
  assert.deepEqual(ctx2.commands(), [
    '/var/lib/cloud/scripts/per-boot/10-x',
    '/var/lib/cloud/scripts/per-instance/10-y',
    '/var/lib/cloud/scripts/per-once/10-z',
  ]);
  assert.deepEqual(
    [scriptsPerBootModule.frequency, scriptsPerInstanceModule.frequency, scriptsPerOnceModule.frequency],
    ['always', 'once-per-instance', 'once'],
  );
});

test('scripts_vendor puts vendor_data.prefix before each script; a missing folder is nothing to do', async (t) => {
  const root = tempDir(t);
  linkInstanceDir(root);
  const ctx = dryContext(root);
  await scriptsVendorModule.run(ctx, { vendor_data: { prefix: ['/usr/bin/env', 'X=1'] } });
  assert.deepEqual(ctx.commands(), []);
  script(root, '/var/lib/cloud/instances/iid-test-1/scripts/vendor/v1', '#!/bin/sh\n');
  await scriptsVendorModule.run(ctx, { vendor_data: { prefix: ['/usr/bin/env', 'X=1'] } });
  assert.deepEqual(ctx.commands(), ['/usr/bin/env X=1 /var/lib/cloud/instance/scripts/vendor/v1']);
  assert.deepEqual(vendorPrefix('/bin/wrap'), ['/bin/wrap']);
  // get_cfg_by_path: a vendor_data that is no mapping, or a null prefix, is no prefix; enabled is not this module's.
  const plain = dryContext(root);
  for (const vendor_data of [null, 'off', { prefix: null, enabled: 'maybe' }])
    await scriptsVendorModule.run(plain, { vendor_data });
  assert.deepEqual(plain.commands(), Array(3).fill('/var/lib/cloud/instance/scripts/vendor/v1'));
  const wrapped = dryContext(root);
  await scriptsVendorModule.run(wrapped, { vendor_data: { prefix: ['/bin/wrap', 7] } });
  assert.deepEqual(wrapped.commands(), ['/bin/wrap 7 /var/lib/cloud/instance/scripts/vendor/v1']);
  assert.throws(() => vendorPrefix(5), /prefix/);
});

test('scripts_user really runs scripts in a Debian rootfs: a failing one is reported after the rest ran', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
      'needs root, unshare and debootstrap for the cached Debian rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-late-'));
  linkInstanceDir(root, 'iid-real');
  // As Debian's cloud.cfg lists it: cc_scripts_user's warning names the module so.
  const ctx = { ...moduleContext(root, { instance: { instanceId: 'iid-real' } }), listedAs: 'scripts-user' };
  await runcmdModule.run(ctx, { runcmd: ['echo from-runcmd > /root/runcmd.out', 'exit 4'] });
  script(root, '/var/lib/cloud/instances/iid-real/scripts/part-001', '#!/bin/sh\necho part1 > /root/part1.out\n');
  script(root, '/var/lib/cloud/instances/iid-real/scripts/part-002', 'echo no shebang\n');
  script(root, '/var/lib/cloud/instances/iid-real/scripts/zz-last', '#!/bin/sh\necho "$0" > /root/last.out\n');
  await assert.rejects(scriptsUserModule.run(ctx, {}), (e: Error) => {
    assert.match(e.message, /Runparts: 2 failures \(part-002,runcmd\) in 4 attempted commands/);
    return true;
  });
  assert.ok(
    ctx.lines.some(
      (l) =>
        /WARN/.test(l) && l.includes('Failed to run module scripts-user (scripts in /var/lib/cloud/instance/scripts)'),
    ),
    ctx.lines.join('\n'),
  );
  assert.equal(readFileSync(join(root, 'root/part1.out'), 'utf8'), 'part1\n');
  assert.equal(readFileSync(join(root, 'root/runcmd.out'), 'utf8'), 'from-runcmd\n');
  assert.equal(readFileSync(join(root, 'root/last.out'), 'utf8'), '/var/lib/cloud/instance/scripts/zz-last\n');
  assert.ok(existsSync(join(root, 'var/log/cloud-init-output.log')));
});
