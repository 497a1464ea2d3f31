// The built Linux binary installs itself into a root (a bare one, and a copy of the Debian rootfs that holds
// Debian's cloud-init), systemctl agrees that the units are enabled, and uninstall leaves the root as it was.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { KILN_CLOUD_INIT_VERSION } from '../../src/build-info';
import { copyRootfs } from '../helpers/debian-rootfs';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const binary = builtBinary('kiln-linux-x64');
const UNITS = [
  'cloud-init-main.service',
  'cloud-init-local.service',
  'cloud-init-network.service',
  'cloud-config.service',
  'cloud-final.service',
];

function kiln(args: string[]) {
  const r = spawnSync(binary as string, args, {
    encoding: 'utf8',
    env: { ...process.env, KILN_FACE: '' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Every file and link under ROOT (not folders): path, type and mode, a link's target. */
function files(root: string): string[] {
  const r = spawnSync('find', [root, '-mindepth', '1', '-not', '-type', 'd', '-printf', '%P %y %m %l\\n'], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).sort();
}

function isEnabled(root: string, unit: string): string {
  return spawnSync('systemctl', ['--root', root, 'is-enabled', unit], { encoding: 'utf8' }).stdout.trim();
}

test('kiln install into a bare root: the binary, its names, the units; systemctl --root sees them enabled; uninstall leaves the root as before', (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
  if (!need(t, hasCommand('systemctl'), 'systemctl is not installed (it checks what install enabled)')) return;
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/hostname'), 'image\n');
  const before = files(root);

  const r = kiln(['install', '--root', root]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /^enabled cloud-init-main\.service, cloud-init-local\.service, cloud-init-network\.service, cloud-config\.service, cloud-final\.service, cloud-init-hotplugd\.socket$/m,
  );
  assert.ok(
    readFileSync(join(root, 'usr/bin/kiln')).equals(readFileSync(binary as string)),
    '/usr/bin/kiln is the running binary',
  );
  assert.equal(readlinkSync(join(root, 'usr/bin/cloud-init')), 'kiln');
  for (const unit of UNITS) assert.equal(isEnabled(root, unit), 'enabled', unit);
  // Hotplug's pieces, as Debian's package ships them: the socket enabled, its service started by it, the hook
  // executable.
  assert.equal(isEnabled(root, 'cloud-init-hotplugd.socket'), 'enabled');
  assert.equal(isEnabled(root, 'cloud-init-hotplugd.service'), 'static');
  assert.ok(
    files(root).includes('usr/lib/cloud-init/hook-hotplug f 755 '),
    files(root)
      .filter((l) => l.includes('cloud-init/'))
      .join('\n'),
  );
  // The installed copy runs, and answers to its cloud-init name.
  const v = spawnSync(join(root, 'usr/bin/cloud-init'), ['--version'], {
    encoding: 'utf8',
    env: { ...process.env, KILN_FACE: '' },
  });
  assert.equal(v.status, 0, v.stderr);
  assert.equal(
    v.stdout.split(' ').slice(0, 2).join(' '),
    `${join(root, 'usr/bin/cloud-init')} ${KILN_CLOUD_INIT_VERSION}`,
  );

  // The image check agrees that the installed units and generator run at the first boot.
  const checked = kiln(['check', '--root', root]);
  assert.equal(checked.code, 0, checked.out + checked.err);
  assert.equal(checked.out, 'ready to capture\n');

  const u = kiln(['uninstall', '--root', root]);
  assert.equal(u.code, 0, u.err);
  assert.deepEqual(files(root), before);
});

test("kiln install into the Debian rootfs refuses while Debian's cloud-init is installed; --replace takes over its names and uninstall gives them back", (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
  if (!need(t, hasCommand('systemctl'), 'systemctl is not installed (it checks what install enabled)')) return;
  if (!need(t, isRoot(), 'copying the Debian rootfs and running dpkg-divert in it need root')) return;
  const root = copyRootfs(tempDir(t));
  const before = files(root);
  const diversions = readFileSync(join(root, 'var/lib/dpkg/diversions'), 'utf8');
  const packageScript = readFileSync(join(root, 'usr/bin/cloud-init'), 'utf8');
  assert.match(packageScript, /^#!.*python/);

  const refused = kiln(['install', '--root', root]);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /^kiln: error: Debian's cloud-init is installed in .*--replace to take over its names\n$/);
  assert.deepEqual(files(root), before);

  const r = kiln(['install', '--root', root, '--replace']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^replacing Debian's cloud-init \(dpkg lists the cloud-init package as installed/m);
  assert.equal(readlinkSync(join(root, 'usr/bin/cloud-init')), 'kiln');
  assert.equal(readlinkSync(join(root, 'usr/bin/cloud-id')), 'kiln');
  // The package's files stay, diverted by dpkg: its script is where dpkg-divert put it, its units untouched.
  assert.equal(readFileSync(join(root, 'usr/bin/cloud-init.distrib'), 'utf8'), packageScript);
  assert.match(
    spawnSync('chroot', [root, 'dpkg-divert', '--list', '/usr/bin/cloud-init'], { encoding: 'utf8' }).stdout,
    /local diversion of \/usr\/bin\/cloud-init to \/usr\/bin\/cloud-init\.distrib/,
  );
  for (const unit of UNITS) {
    // Debian 12's package has three of the names; cloud-init-main.service and cloud-init-network.service are 25.1's.
    if (!unit.includes('main') && !unit.includes('network')) {
      assert.ok(
        before.some((l) => l.startsWith(`usr/lib/systemd/system/${unit} `)),
        `the package's ${unit} is there`,
      );
      assert.ok(files(root).includes(before.find((l) => l.startsWith(`usr/lib/systemd/system/${unit} `)) as string));
    }
    assert.match(readFileSync(join(root, 'etc/systemd/system', unit), 'utf8'), /^# kiln as cloud-init/);
    assert.equal(isEnabled(root, unit), 'enabled', unit);
  }
  // The package's network stage under its 22.4 name would run a second network stage: masked while kiln is there.
  assert.equal(isEnabled(root, 'cloud-init.service'), 'masked');

  const u = kiln(['uninstall', '--root', root]);
  assert.equal(u.code, 0, u.err);
  assert.match(u.out, /gave \/usr\/bin\/cloud-init back to Debian's cloud-init package/);
  assert.equal(readFileSync(join(root, 'usr/bin/cloud-init'), 'utf8'), packageScript);
  // dpkg-divert keeps its previous database as diversions-old: the one file that is new afterwards, dpkg's own.
  assert.deepEqual(
    files(root).filter((l) => !l.startsWith('var/lib/dpkg/diversions-old ')),
    before.filter((l) => !l.startsWith('var/lib/dpkg/diversions-old ')),
  );
  assert.equal(readFileSync(join(root, 'var/lib/dpkg/diversions'), 'utf8'), diversions);
});
