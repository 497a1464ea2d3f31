import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { humanToBytes } from '../../src/modules/support/human-size';
import { mounts } from '../../src/modules/mounts';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

const OPTS = 'defaults,nobootwait,comment=cloudconfig';

function sandbox(t: Parameters<typeof tempDir>[0]): string {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'));
  writeFileSync(
    join(root, 'etc/fstab'),
    'UUID=abc / ext4 errors=remount-ro 0 1\n/dev/vdc\t/old\tauto\tdefaults,comment=cloudconfig\t0\t2\n',
  );
  // A fake disk the module can see: /dev/vdb with a first partition, known to /sys/block.
  mkdirSync(join(root, 'dev'));
  writeFileSync(join(root, 'dev/vdb'), '');
  writeFileSync(join(root, 'dev/vdb1'), '');
  mkdirSync(join(root, 'sys/block/vdb/vdb1'), { recursive: true });
  return root;
}

test('mounts: fills defaults, resolves short names to partitions, tags lines and drops old cloud-config lines', async (t) => {
  const root = sandbox(t);
  await mounts.run(moduleContext(root), {
    mounts: [
      ['vdb', '/data'],
      ['/dev/vdz', '/missing', 'ext4'],
      ['nfs.example:/export', '/nfs', 'nfs', 'rw,hard', '0', '0'],
      'not-a-list',
    ],
  });
  const fstab = readFileSync(join(root, 'etc/fstab'), 'utf8');
  assert.equal(
    fstab,
    [
      'UUID=abc / ext4 errors=remount-ro 0 1',
      `/dev/vdb1\t/data\tauto\t${OPTS}\t0\t2`,
      `/dev/vdz\t/missing\text4\t${OPTS}\t0\t2`,
      'nfs.example:/export\t/nfs\tnfs\trw,hard,comment=cloudconfig\t0\t0',
      '',
    ].join('\n'),
  );
  for (const d of ['data', 'missing', 'nfs']) assert.ok(existsSync(join(root, d)), `${d} mount point created`);
});

test('mounts: a null mount point cancels a device; systemd targets get the systemd default options; mount_default_fields', async (t) => {
  const root = sandbox(t);
  mkdirSync(join(root, 'run/systemd/system'), { recursive: true });
  await mounts.run(moduleContext(root), {
    mounts: [
      ['vdb', '/data'],
      ['vdb', null],
    ],
  });
  assert.doesNotMatch(readFileSync(join(root, 'etc/fstab'), 'utf8'), /\/data/);
  await mounts.run(moduleContext(root), {
    mounts: [
      ['/dev/vdb', '/srv'],
      ['vdb.1', '/dotted'],
    ],
  });
  assert.match(
    readFileSync(join(root, 'etc/fstab'), 'utf8'),
    /^\/dev\/vdb1\t\/srv\tauto\tdefaults,nofail,x-systemd\.after=cloud-init-network\.service,_netdev,comment=cloudconfig\t0\t2$/m,
  );
  assert.match(
    readFileSync(join(root, 'etc/fstab'), 'utf8'),
    /^vdb\.1\t\/dotted\t/m,
    'a dotted plain name is kept as written, as cloud-init does',
  );
  await mounts.run(moduleContext(root), {
    mount_default_fields: [null, null, 'xfs', 'noatime', '0', '0'],
    mounts: [['vdb', '/x']],
  });
  assert.match(
    readFileSync(join(root, 'etc/fstab'), 'utf8'),
    /^\/dev\/vdb1\t\/x\txfs\tnoatime,comment=cloudconfig\t0\t0$/m,
  );
  // The ephemeral0 default keeps the built-in options whatever mount_default_fields says (25.1's
  // add_default_mounts_to_cfg).
  await mounts.run(moduleContext(root, { instance: { metadata: { 'block-device-mapping': { ephemeral0: 'vdb' } } } }), {
    mount_default_fields: [null, null, 'xfs', 'noatime', '0', '0'],
  });
  assert.match(
    readFileSync(join(root, 'etc/fstab'), 'utf8'),
    /^\/dev\/vdb1\t\/mnt\tauto\tdefaults,nofail,x-systemd\.after=cloud-init-network\.service,_netdev,comment=cloudconfig\t0\t2$/m,
  );
});

test('mounts: a swap file is created with mkswap and listed untagged (25.1 appends it after add_comment)', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
      'needs root, unshare and debootstrap for the Debian rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-swap-'));
  const ctx = moduleContext(root);
  await mounts.run(ctx, { swap: { filename: '/swapfile', size: '8M' } });
  const st = statSync(join(root, 'swapfile'));
  assert.equal(st.size, 8 * 2 ** 20);
  assert.equal(st.mode & 0o777, 0o600);
  assert.match(readFileSync(join(root, 'swapfile')).subarray(4086, 4096).toString('latin1'), /SWAPSPACE2/);
  assert.match(readFileSync(join(root, 'etc/fstab'), 'utf8'), /^\/swapfile\tnone\tswap\tsw\t0\t0$/m);
});

test("mounts: a btrfs swap file is emptied and made NOCOW (chattr +C) before fallocate, as 25.1's create_swapfile", async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
      'needs root, unshare and debootstrap for the Debian rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-swap-'));
  const log = '/swap-cmds.log';
  const fake = (name: string, body: string) => {
    writeFileSync(join(root, 'usr/local/bin', name), `#!/bin/sh\necho "${name} $*" >>${log}\n${body}\n`, {
      mode: 0o755,
    });
  };
  fake('findmnt', 'echo btrfs');
  fake('chattr', 'exit 0');
  fake('truncate', 'exec /usr/bin/truncate "$@"');
  fake('fallocate', 'exec /usr/bin/fallocate "$@"');
  fake('dd', 'exec /usr/bin/dd "$@"');
  await mounts.run(moduleContext(root), { swap: { filename: '/swapfile', size: '8M' } });
  assert.deepEqual(
    readFileSync(join(root, log.slice(1)), 'utf8')
      .trim()
      .split('\n')
      .slice(1),
    ['truncate -s 0 /swapfile', 'chattr +C /swapfile', 'fallocate -l 8M /swapfile'],
  );
  assert.equal(statSync(join(root, 'swapfile')).size, 8 * 2 ** 20);
});

test('human sizes', () => {
  assert.equal(humanToBytes('10M'), 10485760);
  assert.equal(humanToBytes('.5G'), 536870912);
  assert.equal(humanToBytes('2KB'), 2048);
  assert.equal(humanToBytes('512'), 512);
  assert.throws(() => humanToBytes('lots'), /not valid/);
});
