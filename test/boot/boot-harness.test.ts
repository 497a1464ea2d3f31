// The qemu boot harness fails fast and says why: no kernel in the image, no qemu, a guest that does not finish in
// time (killed, with the console's tail in the message), so a broken boot can never hang the suite.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureBootRootfs } from '../helpers/debian-rootfs';
import { BootFailure, bootQemu, makeBootImage } from '../helpers/qemu-boot';
import { hasCommand, isRoot, need } from '../helpers/requirements';

test('an image without a kernel is refused, naming the package to install', () => {
  const work = mkdtempSync('/tmp/kiln-boot-harness-');
  try {
    const root = join(work, 'root');
    mkdirSync(join(root, 'boot'), { recursive: true });
    mkdirSync(join(root, 'etc'));
    assert.throws(
      () => makeBootImage(root, work),
      (err: unknown) => err instanceof BootFailure && /no vmlinuz-\*.*linux-image-amd64/.test(err.message),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('a missing qemu fails the boot at once with what could not be started', async () => {
  const image = { disk: '/nonexistent/disk.raw', kernel: '/nonexistent/vmlinuz', initrd: '/nonexistent/initrd.img' };
  await assert.rejects(
    bootQemu({ image, timeoutMs: 30_000, accel: 'tcg', qemu: '/nonexistent/qemu-system-x86_64' }),
    (err: unknown) => err instanceof BootFailure && /could not be started: .*ENOENT/.test(err.message),
  );
});

/** The kernel of the bootable tree the boot tests use, built by its fixture when it is not cached yet. */
function bootKernel(): string {
  const dir = join(ensureBootRootfs(), 'boot');
  const name = readdirSync(dir)
    .filter((n) => n.startsWith('vmlinuz-'))
    .sort()
    .at(-1);
  if (name === undefined) throw new Error(`the bootable tree has no kernel in ${dir}`);
  return join(dir, name);
}

// The timeout covers building the bootable tree when this test is the first to want it (debootstrap, minutes).
test('a boot that does not finish in time is killed and fails with the console tail', {
  timeout: 1_800_000,
}, async (t) => {
  if (
    !need(
      t,
      hasCommand('qemu-system-x86_64') && isRoot() && hasCommand('debootstrap'),
      'needs qemu-system-x86_64, and root and debootstrap for the bootable Debian tree whose kernel it boots',
    )
  )
    return;
  const kernel = bootKernel();
  const work = mkdtempSync('/tmp/kiln-boot-harness-');
  try {
    // A junk initramfs and an empty disk: the kernel prints its banner, then cannot mount a root and waits
    // (panic=0); it never powers off.
    const image = { disk: join(work, 'empty.raw'), kernel, initrd: join(work, 'junk.img') };
    writeFileSync(image.disk, Buffer.alloc(1024 * 1024));
    writeFileSync(image.initrd, Buffer.alloc(4096));
    // The limit counts from the kernel's first line, so the tail holds kernel lines however slowly a loaded
    // machine starts qemu (a fixed 12 s from qemu's start once ended before the kernel printed anything).
    await assert.rejects(
      bootQemu({ image, timeoutMs: 3_000, timeoutFrom: /\[ *\d+\.\d{6}\] /, accel: 'tcg', append: 'panic=0' }),
      (err: unknown) => {
        assert.ok(err instanceof BootFailure);
        assert.match(err.message, /did not finish within 3 s of its first line matching/);
        assert.match(err.message, /console tail[\s\S]*\[ *\d+\.\d{6}\] /, 'no kernel line in the console tail');
        return true;
      },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
