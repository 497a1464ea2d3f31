// The namespace the arm64 boot tree is built in (test/helpers/foreign-chroot.ts): an arm64 program runs in a chroot
// through qemu-user-static registered in the namespace's own binfmt_misc, files it writes belong to the host's root,
// and the host's binfmt_misc is left as it was.
import { strict as assert } from 'node:assert';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runWithForeignBinfmt } from '../helpers/foreign-chroot';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';

const kiln = builtBinary('kiln-linux-arm64');

test("an arm64 program runs in a chroot through the namespace's own binfmt_misc, writing files the host's root owns", {
  timeout: 300_000,
}, (t) => {
  if (
    !need(
      t,
      isRoot() &&
        kiln !== undefined &&
        hasCommand('qemu-aarch64-static') &&
        hasCommand('unshare') &&
        existsSync('/usr/aarch64-linux-gnu/lib/libc.so.6'),
      'needs root, dist/kiln-linux-arm64 (node build.mjs linux-arm64), qemu-user-static, unshare and libc6-arm64-cross',
    )
  )
    return;
  const hostBinfmt = existsSync('/proc/sys/fs/binfmt_misc') ? readdirSync('/proc/sys/fs/binfmt_misc').sort() : [];
  const work = mkdtempSync('/var/tmp/kiln-foreign-chroot-');
  try {
    // The smallest arm64 root kiln starts in: the cross libc and libstdc++ as /lib, the binary, a /tmp for koffi's
    // addon.
    const root = join(work, 'root');
    cpSync('/usr/aarch64-linux-gnu/lib', join(root, 'lib'), { recursive: true, verbatimSymlinks: true });
    mkdirSync(join(root, 'tmp'), { mode: 0o1777 });
    mkdirSync(join(root, 'out'));
    cpSync(kiln as string, join(root, 'kiln'));
    // make-seed writes a file, owned by the namespace's root, which is the host's.
    mkdirSync(join(root, 'seed'));
    writeFileSync(join(root, 'seed/meta-data'), 'instance-id: iid-foreign-chroot\n');
    writeFileSync(join(root, 'seed/user-data'), '#cloud-config\n');
    const out = runWithForeignBinfmt(
      'arm64',
      `chroot '${root}' /kiln make-seed -o /out/seed.img /seed && chroot '${root}' /kiln --version`,
    );
    assert.match(out, /^kiln \S+ \(cloud-init /m);
    const seed = statSync(join(root, 'out/seed.img'));
    assert.equal(seed.uid, 0, "the file made in the namespace does not belong to the host's root");
    assert.ok(seed.size > 0);
    // Without the namespace the host cannot run it in the chroot (no handler registered on the host).
    const hostAfter = existsSync('/proc/sys/fs/binfmt_misc') ? readdirSync('/proc/sys/fs/binfmt_misc').sort() : [];
    assert.deepEqual(hostAfter, hostBinfmt, "the host's binfmt_misc changed");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
