// grub_dpkg on a sandbox root whose commands are scripted: the debconf selections cloud-init 25.1 would set.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { grubDpkgModule } from '../../src/modules/grub-dpkg';
import type { RunResult } from '../../src/platform/platform';
import { putFile, putTool } from './root-files';
import { scriptedModule } from './scripted-module-platform';

/** A sandbox root with grub-probe and udevadm (unless told otherwise) and the given extra paths. */
function setup(
  t: TestContext,
  answers: Record<string, Partial<RunResult>>,
  opts: { tools?: boolean; paths?: string[] } = {},
) {
  const s = scriptedModule(t, answers);
  if (opts.tools !== false) {
    putTool(s.root, '/usr/sbin/grub-probe');
    putTool(s.root, '/usr/bin/udevadm');
  }
  for (const p of opts.paths ?? []) putFile(s.root, p);
  const selections = () => s.dry.calls.filter((c) => c.argv[0] === 'debconf-set-selections').map((c) => c.input);
  return { ctx: s.ctx, selections, commands: s.commands };
}

/** The module's config that turns it on: 25.1 runs it only when asked (`enabled` defaults to false since 24.4). */
const ON = { grub_dpkg: { enabled: true } };

const UDEV_LINKS =
  '/dev/disk/by-path/pci-0000:00:04.0 /dev/disk/by-id/virtio-zz /dev/disk/by-id/virtio-aa /dev/disk/by-uuid/1234\n';

test('grub_dpkg on a BIOS machine picks the first /dev/disk/by-id link of the disk under /boot', async (t) => {
  const s = setup(
    t,
    { 'grub-probe': { stdout: '/dev/vda\n' }, udevadm: { stdout: UDEV_LINKS } },
    { paths: ['/dev/vda'] },
  );
  await grubDpkgModule.run(s.ctx, ON);
  assert.deepEqual(s.commands(), [
    'grub-probe -t disk /boot',
    'udevadm info --root --query=symlink /dev/vda',
    'debconf-set-selections',
  ]);
  assert.deepEqual(s.selections(), [
    'grub-pc grub-pc/install_devices string /dev/disk/by-id/virtio-aa\ngrub-pc grub-pc/install_devices_empty boolean false\n',
  ]);
});

test('grub_dpkg falls back to the plain disk name when udev has no by-id link, or udevadm fails (a warning)', async (t) => {
  const s = setup(
    t,
    { 'grub-probe': { stdout: '/dev/vda\n' }, udevadm: { stdout: '/dev/disk/by-path/x\n' } },
    { paths: ['/dev/vda'] },
  );
  await grubDpkgModule.run(s.ctx, ON);
  assert.deepEqual(s.selections(), [
    'grub-pc grub-pc/install_devices string /dev/vda\ngrub-pc grub-pc/install_devices_empty boolean false\n',
  ]);
  const f = setup(
    t,
    { 'grub-probe': { stdout: '/dev/vda\n' }, udevadm: { code: 2, stderr: 'no such device' } },
    { paths: ['/dev/vda'] },
  );
  await grubDpkgModule.run(f.ctx, ON);
  assert.deepEqual(f.selections(), [
    'grub-pc grub-pc/install_devices string /dev/vda\ngrub-pc grub-pc/install_devices_empty boolean false\n',
  ]);
  assert.match(f.ctx.problems.join('\n'), /WARNING: udevadm DEVLINKS symlink query failed for disk='\/dev\/vda'/);
});

test('grub_dpkg with no device found (no grub-probe, a container, a disk missing from /dev) seeds empty values', async (t) => {
  const empty = 'grub-pc grub-pc/install_devices string \ngrub-pc grub-pc/install_devices_empty boolean true\n';
  const none = setup(t, {}, { tools: false });
  await grubDpkgModule.run(none.ctx, ON);
  assert.deepEqual(none.commands(), ['debconf-set-selections']);
  assert.deepEqual(none.selections(), [empty]);
  const container = setup(t, {
    'grub-probe': { code: 1, stderr: "grub-probe: error: failed to get canonical path of `overlay'.\n" },
  });
  await grubDpkgModule.run(container.ctx, ON);
  assert.deepEqual(container.selections(), [empty]);
  const missing = setup(t, { 'grub-probe': { stdout: '/dev/sdz\n' } });
  await grubDpkgModule.run(missing.ctx, ON);
  assert.deepEqual(missing.commands(), ['grub-probe -t disk /boot', 'debconf-set-selections']);
  assert.deepEqual(missing.selections(), [empty]);
});

test('grub_dpkg fails on any other grub-probe error, as cloud-init does', async (t) => {
  const s = setup(t, { 'grub-probe': { code: 1, stderr: 'grub-probe: error: unknown filesystem.\n' } });
  await assert.rejects(
    grubDpkgModule.run(s.ctx, ON),
    /grub_dpkg.*grub-probe could not find the device of \/boot \(exit 1\): grub-probe: error: unknown filesystem\./s,
  );
  assert.deepEqual(s.selections(), []);
});

test('grub_dpkg on an EFI machine sets grub-efi/install_devices from the partition under /boot/efi', async (t) => {
  const s = setup(
    t,
    { 'grub-probe': { stdout: '/dev/vda15\n' }, udevadm: { stdout: '/dev/disk/by-id/virtio-aa-part15\n' } },
    { paths: ['/dev/vda15', '/sys/firmware/efi/fw_platform_size'] },
  );
  await grubDpkgModule.run(s.ctx, ON);
  assert.deepEqual(s.commands(), [
    'grub-probe -t device /boot/efi',
    'udevadm info --root --query=symlink /dev/vda15',
    'debconf-set-selections',
  ]);
  assert.deepEqual(s.selections(), ['grub-pc grub-efi/install_devices string /dev/disk/by-id/virtio-aa-part15\n']);
  const given = setup(t, {}, { paths: ['/sys/firmware/efi/x'] });
  await grubDpkgModule.run(given.ctx, { grub_dpkg: { enabled: true, 'grub-efi/install_devices': '/dev/sda1' } });
  assert.deepEqual(given.commands(), ['debconf-set-selections']);
  assert.deepEqual(given.selections(), ['grub-pc grub-efi/install_devices string /dev/sda1\n']);
});

test('grub_dpkg config: given devices skip probing, install_devices_empty as translate_bool reads it, the grub-dpkg alias', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [
      { grub_dpkg: { enabled: true, 'grub-pc/install_devices': '/dev/sda' } },
      'grub-pc grub-pc/install_devices string /dev/sda\ngrub-pc grub-pc/install_devices_empty boolean false\n',
    ],
    [
      { grub_dpkg: { enabled: true, 'grub-pc/install_devices': '' } },
      'grub-pc grub-pc/install_devices string \ngrub-pc grub-pc/install_devices_empty boolean true\n',
    ],
    [
      { grub_dpkg: { enabled: true, 'grub-pc/install_devices': '/dev/sda', 'grub-pc/install_devices_empty': 'yes' } },
      'grub-pc grub-pc/install_devices string /dev/sda\ngrub-pc grub-pc/install_devices_empty boolean true\n',
    ],
    [
      { grub_dpkg: { enabled: true, 'grub-pc/install_devices': '', 'grub-pc/install_devices_empty': '' } },
      'grub-pc grub-pc/install_devices string \ngrub-pc grub-pc/install_devices_empty boolean false\n',
    ],
    [
      { grub_dpkg: { enabled: true, 'grub-pc/install_devices': '', 'grub-pc/install_devices_empty': false } },
      'grub-pc grub-pc/install_devices string \ngrub-pc grub-pc/install_devices_empty boolean false\n',
    ],
    // get_cfg_option_str turns a null into Python's 'None'.
    [
      { grub_dpkg: { enabled: true, 'grub-pc/install_devices': null } },
      'grub-pc grub-pc/install_devices string None\ngrub-pc grub-pc/install_devices_empty boolean false\n',
    ],
    [
      { 'grub-dpkg': { enabled: true, 'grub-pc/install_devices': '/dev/xvda' } },
      'grub-pc grub-pc/install_devices string /dev/xvda\ngrub-pc grub-pc/install_devices_empty boolean false\n',
    ],
    // grub_dpkg wins over the alias when both are given.
    [
      {
        grub_dpkg: { enabled: true, 'grub-pc/install_devices': '/dev/a' },
        'grub-dpkg': { 'grub-pc/install_devices': '/dev/b' },
      },
      'grub-pc grub-pc/install_devices string /dev/a\ngrub-pc grub-pc/install_devices_empty boolean false\n',
    ],
  ];
  for (const [cfg, want] of cases) {
    const s = setup(t, { 'grub-probe': { code: 1, stderr: 'must not be run' } });
    await grubDpkgModule.run(s.ctx, cfg);
    assert.deepEqual(s.commands(), ['debconf-set-selections'], JSON.stringify(cfg));
    assert.deepEqual(s.selections(), [want], JSON.stringify(cfg));
  }
});

test('grub_dpkg does nothing unless enabled, as 25.1 (an empty mapping, an alias without `enabled`)', async (t) => {
  for (const cfg of [
    {},
    { grub_dpkg: null },
    { grub_dpkg: {} },
    { 'grub-dpkg': { 'grub-pc/install_devices': '/dev/sda' } },
  ]) {
    const s = setup(t, { 'grub-probe': { stdout: '/dev/vda\n' } }, { paths: ['/dev/vda'] });
    await grubDpkgModule.run(s.ctx, cfg);
    assert.deepEqual(s.commands(), [], JSON.stringify(cfg));
  }
});

test('grub_dpkg: enabled false (or a false word) does nothing; a non-mapping is an error; a failing debconf-set-selections is a warning', async (t) => {
  for (const enabled of [false, 'no', 'off', '0']) {
    const s = setup(t, {});
    await grubDpkgModule.run(s.ctx, { grub_dpkg: { enabled } });
    assert.deepEqual(s.commands(), [], String(enabled));
  }
  const s = setup(t, {});
  await assert.rejects(grubDpkgModule.run(s.ctx, { grub_dpkg: '/dev/sda' }), /'grub_dpkg' must be a mapping/);
  const f = setup(
    t,
    {
      'debconf-set-selections': {
        code: 1,
        stderr: 'debconf: DbDriver "config": /var/cache/debconf/config.dat is locked by another process',
      },
    },
    { tools: false },
  );
  await grubDpkgModule.run(f.ctx, ON);
  assert.match(
    f.ctx.problems.join('\n'),
    /WARNING: Failed to run debconf-set-selections for grub_dpkg: exit 1: debconf: DbDriver "config"/,
  );
});

test('grub_dpkg reads its keys as 25.1 does: a device list is its str() (get_cfg_option_str), a null grub_dpkg still hides the alias', async (t) => {
  const s = setup(t, { 'grub-probe': { code: 1, stderr: 'must not be run' } });
  await grubDpkgModule.run(s.ctx, {
    grub_dpkg: { enabled: 'yes', 'grub-pc/install_devices': ['/dev/a'], 'grub-pc/install_devices_empty': 'off' },
  });
  assert.deepEqual(s.selections(), [
    "grub-pc grub-pc/install_devices string ['/dev/a']\ngrub-pc grub-pc/install_devices_empty boolean false\n",
  ]);
  const hidden = setup(t, {});
  await grubDpkgModule.run(hidden.ctx, { grub_dpkg: null, 'grub-dpkg': { enabled: true } });
  assert.deepEqual(hidden.commands(), []);
});
