import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { growpart } from '../../src/modules/growpart';
import { CommandError } from '../../src/util/command-error';
import { resizeCommand, resizefs } from '../../src/modules/resizefs';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

/** A fake machine inside the rootfs: / is /dev/vda1 (254:1), an image file standing in for the disk. */
function fakeMachine(root: string, fstype: string): void {
  mkdirSync(join(root, 'proc/self'), { recursive: true });
  writeFileSync(
    join(root, 'proc/self/mountinfo'),
    `21 1 254:1 / / rw,relatime shared:1 - ${fstype} /dev/vda1 rw\n25 21 0:5 / /dev rw - devtmpfs udev rw\n`,
  );
  mkdirSync(join(root, 'sys/devices/virtual/block/vda/vda1'), { recursive: true });
  writeFileSync(join(root, 'sys/devices/virtual/block/vda/vda1/partition'), '1\n');
  mkdirSync(join(root, 'sys/dev/block'), { recursive: true });
  symlinkSync('../../devices/virtual/block/vda/vda1', join(root, 'sys/dev/block/254:1'));
  mkdirSync(join(root, 'sys/class/block'), { recursive: true });
  symlinkSync('../../devices/virtual/block/vda/vda1', join(root, 'sys/class/block/vda1'));
}

function rootfsOk(t: Parameters<typeof tempDir>[0]): boolean {
  return need(
    t,
    isRoot() && hasCommand('unshare') && hasCommand('debootstrap') && hasCommand('sfdisk') && hasCommand('sgdisk'),
    'needs root, unshare, debootstrap, sfdisk and sgdisk',
  );
}

test('growpart finds the disk behind / through mountinfo and /sys and grows its last partition', async (t) => {
  if (!rootfsOk(t)) return;
  const root = copyRootfs(tempDir(t, 'kiln-gp-'));
  fakeMachine(root, 'ext4');
  const disk = join(root, 'dev/vda');
  writeFileSync(disk, '');
  truncateSync(disk, 32 * 2 ** 20);
  assert.equal(
    spawnSync('sfdisk', ['--no-reread', '--no-tell-kernel', disk], { input: 'label: gpt\nsize=8MiB, type=linux\n' })
      .status,
    0,
  );
  truncateSync(disk, 64 * 2 ** 20);
  const ctx = moduleContext(root);
  await growpart.run(ctx, {});
  assert.ok(
    ctx.lines.some((l) => /INFO\]: '\/' resized: changed \(\/dev\/vda1\) from 8388608 to \d+/.test(l)),
    ctx.lines.join(''),
  );
  assert.match(spawnSync('sgdisk', ['-v', disk], { encoding: 'utf8' }).stdout, /No problems found/);
  const again = moduleContext(root);
  await growpart.run(again, { growpart: { mode: 'auto', devices: ['/'] } });
  assert.ok(
    again.lines.some((l) => l.includes("'/' NOCHANGE")),
    'a second boot has nothing to do',
  );
  writeFileSync(join(root, 'etc/growroot-disabled'), '');
  const off = moduleContext(root);
  await growpart.run(off, {});
  assert.ok(off.lines.some((l) => l.includes('/etc/growroot-disabled exists')));
});

/** A stand-in growpart in the rootfs: --help as cloud-guest-utils', its dry run exiting DRY, the real run GROW. */
function fakeGrowpartTool(root: string, dry: number, grow = 'exit 2'): void {
  mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
  writeFileSync(
    join(root, 'usr/local/bin/growpart'),
    [
      '#!/bin/sh',
      `[ "$1" = --help ] && { echo '    -u | --update  R do it'; exit 0; }`,
      `[ "$1" = --dry-run ] && { echo "dry run $*" >&2; exit ${dry}; }`,
      grow,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
}

test('growpart only logs a FAILED entry, as 25.1 does, and does not fail the module', async (t) => {
  if (!rootfsOk(t)) return;
  const root = copyRootfs(tempDir(t, 'kiln-gp-'));
  fakeMachine(root, 'ext4');
  const disk = join(root, 'dev/vda');
  writeFileSync(disk, '');
  truncateSync(disk, 32 * 2 ** 20);
  fakeGrowpartTool(root, 2);
  for (const mode of ['auto', 'growpart']) {
    const ctx = moduleContext(root);
    await growpart.run(ctx, { growpart: { mode } });
    assert.ok(
      ctx.lines.some((l) => l.includes('DEBUG') && l.includes("'/' FAILED: ")),
      ctx.lines.join(''),
    );
  }
});

test("growpart's growpart mode: 25.1's dry run, then the partition's size before and after", async (t) => {
  if (!rootfsOk(t)) return;
  const root = copyRootfs(tempDir(t, 'kiln-gp-'));
  fakeMachine(root, 'ext4');
  writeFileSync(join(root, 'dev/vda'), '');
  const part = join(root, 'dev/vda1');
  writeFileSync(part, '');
  truncateSync(part, 8 * 2 ** 20);
  fakeGrowpartTool(root, 0, 'truncate -s 16M /dev/vda1');
  const grown = moduleContext(root);
  await growpart.run(grown, { growpart: { mode: 'growpart' } });
  assert.ok(
    grown.lines.some((l) => l.includes("[INFO]: '/' resized: changed (/dev/vda1) from 8388608 to 16777216")),
    grown.lines.join(''),
  );
  fakeGrowpartTool(root, 1);
  const same = moduleContext(root);
  await growpart.run(same, { growpart: { mode: 'growpart' } });
  assert.ok(
    same.lines.some((l) => l.includes("[DEBUG]: '/' NOCHANGE: no change necessary (/dev/vda, 1)")),
    same.lines.join(''),
  );
  fakeGrowpartTool(root, 2);
  const failed = moduleContext(root);
  await growpart.run(failed, { growpart: { mode: 'growpart' } });
  const text = failed.lines.join('');
  assert.ok(text.includes('[WARNING]: Failed growpart --dry-run for (/dev/vda, 1)'), text);
  assert.ok(
    text.includes(
      "[DEBUG]: '/' FAILED: failed to resize: disk=/dev/vda, ptnum=1: Unexpected error while running command.\n" +
        "Command: ['growpart', '--dry-run', '/dev/vda', '1']\nExit code: 2\nReason: -\nStdout: \n" +
        'Stderr: dry run --dry-run /dev/vda 1\n',
    ),
    text,
  );
});

test('growpart: off, unknown modes and missing mounts', async (t) => {
  const root = tempDir(t);
  const ctx = moduleContext(root);
  await growpart.run(ctx, { growpart: { mode: 'off' } });
  assert.equal(
    ctx.lines.some((l) => l.includes('DEPRECATED')),
    false,
    "'off' is the spelling to use",
  );
  await growpart.run(ctx, { growpart: { mode: false } });
  assert.ok(
    ctx.lines.some((l) =>
      l.includes(
        "[DEPRECATED]: Growpart's 'mode' key with value 'False' is deprecated in 22.2 and scheduled to be removed in 27.2. Use 'off' instead.",
      ),
    ),
    ctx.lines.join(''),
  );
  // resizer_factory: FreeBSD's gpart, or growpart without the tool, is not available: a ValueError.
  await assert.rejects(
    growpart.run(ctx, { growpart: { mode: 'gpart' } }),
    /^ModuleError: growpart: mode gpart not available$/,
  );
  await assert.rejects(growpart.run(ctx, { growpart: { mode: 'growpart' } }), (e: Error & { pythonName?: string }) => {
    assert.equal(e.message, 'growpart: mode growpart not available');
    assert.equal(e.pythonName, 'ValueError');
    return true;
  });
  assert.ok(
    ctx.lines.some((l) => l.includes("growpart unable to find resizer for 'growpart': mode growpart not available")),
  );
  await growpart.run(ctx, {});
  assert.ok(ctx.lines.some((l) => l.includes("'/' SKIPPED")));
});

test("growpart reads its config as 25.1's cc_growpart: a non-mapping only warned about, is_false modes, devices by get_cfg_option_list", async (t) => {
  const root = tempDir(t);
  const warned = moduleContext(root);
  await growpart.run(warned, { growpart: 'yes' });
  assert.ok(warned.lines.some((l) => l.includes('WARNING') && l.includes("'growpart' in config was not a dict")));
  assert.equal(
    warned.lines.some((l) => l.includes("'/' SKIPPED")),
    false,
    'no default growth after the warning',
  );
  const no = moduleContext(root);
  await growpart.run(no, { growpart: { mode: 'no' } });
  // The value as given in the message, not the false it is read as.
  assert.ok(no.lines.some((l) => l.includes('[DEBUG]: growpart disabled: mode=no')));
  assert.ok(
    no.lines.some((l) => l.includes("[DEPRECATED]: Growpart's 'mode' key with value 'no' is deprecated in 22.2")),
  );
  const none = moduleContext(root);
  await growpart.run(none, { growpart: { devices: null } });
  assert.ok(none.lines.some((l) => l.includes('growpart: empty device list')));
  const one = moduleContext(root);
  await growpart.run(one, { growpart: { devices: '/srv', ignore_growroot_disabled: 'false' } });
  assert.ok(
    one.lines.some((l) => l.includes("'/srv' SKIPPED")),
    one.lines.join(''),
  );
});

test('resizefs grows an ext4 root with resize2fs', async (t) => {
  if (!rootfsOk(t) || !need(t, hasCommand('mkfs.ext4') && hasCommand('dumpe2fs'), 'needs e2fsprogs')) return;
  const root = copyRootfs(tempDir(t, 'kiln-rfs-'));
  fakeMachine(root, 'ext4');
  // resize2fs reads /etc/mtab (-> /proc/self/mounts); an empty one makes it resize the image offline,
  // never touching the filesystem the sandbox lives on.
  writeFileSync(join(root, 'proc/self/mounts'), '');
  const part = join(root, 'dev/vda1');
  writeFileSync(part, '');
  truncateSync(part, 16 * 2 ** 20);
  assert.equal(spawnSync('mkfs.ext4', ['-q', '-F', part]).status, 0);
  truncateSync(part, 48 * 2 ** 20);
  const blocks = () =>
    Number(/Block count:\s+(\d+)/.exec(spawnSync('dumpe2fs', ['-h', part], { encoding: 'utf8' }).stdout)?.[1]);
  const before = blocks();
  const ctx = moduleContext(root);
  await resizefs.run(ctx, {});
  assert.ok(blocks() > before * 2, `block count grew from ${before} to ${blocks()}`);
  assert.ok(ctx.lines.some((l) => l.includes('[DEBUG]: Resizing / (ext4) using resize2fs /dev/vda1')));
  // do_resize captures resize2fs's output: none of it goes to the output log.
  assert.equal(ctx.outputText(), '');
});

test("resizefs: btrfs as 25.1's _resize_btrfs (--enqueue from btrfs-progs 5.10, /.snapshots on a read-only /)", async (t) => {
  if (!rootfsOk(t)) return;
  const root = copyRootfs(tempDir(t, 'kiln-rfs-'));
  fakeMachine(root, 'btrfs');
  writeFileSync(join(root, 'dev/vda1'), '');
  const btrfs = (version: string, resize = 'exit 0') => {
    mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
    writeFileSync(
      join(root, 'usr/local/bin/btrfs'),
      `#!/bin/sh\n[ "$1" = --version ] && { echo "btrfs-progs v${version}"; echo '-EXPERIMENTAL'; exit 0; }\necho "$*" >/btrfs.log\n${resize}\n`,
      { mode: 0o755 },
    );
  };
  const resized = async (version: string) => {
    btrfs(version);
    await resizefs.run(moduleContext(root), {});
    return readFileSync(join(root, 'btrfs.log'), 'utf8').trim();
  };
  assert.equal(await resized('6.14'), 'filesystem resize --enqueue max /');
  assert.equal(await resized('5.10'), 'filesystem resize --enqueue max /');
  assert.equal(await resized('5.4'), 'filesystem resize max /');
  mkdirSync(join(root, '.snapshots'));
  assert.equal(await resized('6.14'), 'filesystem resize --enqueue max /', 'a read-write / is resized itself');
  writeFileSync(
    join(root, 'proc/self/mountinfo'),
    '21 1 254:1 / / ro,relatime shared:1 - btrfs /dev/vda1 ro\n25 21 0:5 / /dev rw - devtmpfs udev rw\n',
  );
  assert.equal(await resized('6.14'), 'filesystem resize --enqueue max //.snapshots');
  btrfs('6.14', 'echo busy >&2; exit 1');
  const failed = moduleContext(root);
  // The ProcessExecutionError raised again: a CommandError, which the runner reports as one.
  await assert.rejects(resizefs.run(failed, {}), CommandError);
  assert.ok(
    failed.lines.some((l) =>
      l.includes("[WARNING]: Failed to resize filesystem (cmd=('btrfs', 'filesystem', 'resize', '--enqueue', 'max',"),
    ),
    failed.lines.join(''),
  );
});

test('resizefs: a missing root device is a WARNING, in a container only a DEBUG line (25.1)', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'proc/self'), { recursive: true });
  writeFileSync(join(root, 'proc/self/mountinfo'), '21 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n');
  const vm = moduleContext(root);
  await resizefs.run(vm, {});
  assert.ok(
    vm.lines.some((l) =>
      l.includes("[WARNING]: Device '/dev/vda1' did not exist. cannot resize: dev=/dev/vda1 mnt_point=/ path=/"),
    ),
    vm.lines.join(''),
  );
  mkdirSync(join(root, 'proc/1'));
  writeFileSync(join(root, 'proc/1/environ'), 'PATH=/bin\0container=lxc\0');
  const ct = moduleContext(root);
  await resizefs.run(ct, {});
  assert.ok(
    ct.lines.some((l) =>
      l.includes(
        "[DEBUG]: Device '/dev/vda1' did not exist in container. cannot resize: dev=/dev/vda1 mnt_point=/ path=/",
      ),
    ),
    ct.lines.join(''),
  );
  assert.equal(
    ct.lines.some((l) => l.includes('[WARNING]')),
    false,
  );
});

test('resizefs: disabled, commands per filesystem, and bad values', async (t) => {
  const root = tempDir(t);
  await resizefs.run(moduleContext(root), { resize_rootfs: false });
  assert.deepEqual(resizeCommand('ext4', '/dev/vda1', '/'), ['resize2fs', '/dev/vda1']);
  assert.deepEqual(resizeCommand('xfs', '/dev/vda1', '/'), ['xfs_growfs', '/']);
  assert.deepEqual(resizeCommand('btrfs', '/dev/vda1', '/'), ['btrfs', 'filesystem', 'resize', 'max', '/']);
  assert.equal(resizeCommand('vfat', '/dev/x', '/'), undefined);
  // translate_bool of get_cfg_option_str's str(): a value with no true word in it disables resizing, as in 22.4 and
  // 25.1 (kiln used to refuse 'sometimes'; cloud-init never did).
  for (const resize_rootfs of ['sometimes', 'no', 'False', 0, null]) {
    const ctx = moduleContext(root);
    await resizefs.run(ctx, { resize_rootfs });
    assert.ok(
      ctx.lines.some((l) => l.includes('Skipping module named resizefs, resizing disabled')),
      String(resize_rootfs),
    );
  }
});
