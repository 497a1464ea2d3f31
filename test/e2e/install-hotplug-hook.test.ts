// The hotplug path `kiln install` puts in place, run as udev and systemd would run it: the built binary installed
// into the Debian rootfs (its cloud-init purged), the hook-hotplug script the install_hotplug rule names run in a
// chroot with a FIFO held open as cloud-init-hotplugd.socket holds it, then the installed service's command reading
// that line and handing it to `cloud-init devel hotplug-hook`, whose log says what it parsed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { serializeInstance } from '../../src/runner/instance-cache';
import { hotplugUdevRule } from '../../src/sources/hotplug-udev-rule';
import { copyRootfs } from '../helpers/debian-rootfs';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const binary = builtBinary('kiln-linux-x64');

/** The one value of KEY= in a unit file's text. */
function unitValue(unitText: string, key: string): string {
  const values = unitText
    .split('\n')
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));
  assert.equal(values.length, 1, `${key}= in\n${unitText}`);
  return values[0] as string;
}

test('the installed hook-hotplug writes, once the boot has finished, the line the installed hotplugd service hands to devel hotplug-hook handle', (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
  if (!need(t, isRoot() && hasCommand('unshare'), 'copying the Debian rootfs and chroot into it need root and unshare'))
    return;
  const root = copyRootfs(tempDir(t));
  const purge = spawnSync('chroot', [root, 'dpkg', '--purge', 'cloud-init'], { encoding: 'utf8' });
  assert.equal(purge.status, 0, purge.stderr);
  const install = spawnSync(binary as string, ['install', '--root', root], {
    encoding: 'utf8',
    env: { ...process.env, KILN_FACE: '' },
  });
  assert.equal(install.status, 0, install.stderr);

  // A boot found an OpenStack instance whose config leaves hotplug off: handle then parses, logs and does nothing.
  // (Not Ec2: cloud-init 25.1's Ec2 has hotplug among its default events.)
  const dir = join(root, 'var/lib/cloud/instances/i-hotplug');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'obj.json'),
    serializeInstance(
      'OpenStack',
      {
        instanceId: 'i-hotplug',
        cloudName: 'openstack',
        platform: 'openstack',
        subplatform: 'metadata (http://169.254.169.254)',
        publicKeys: [],
        metadata: {},
      },
      'network',
    ),
  );
  writeFileSync(join(dir, 'cloud-config.txt'), '#cloud-config\nhostname: x\n');
  symlinkSync('/var/lib/cloud/instances/i-hotplug', join(root, 'var/lib/cloud/instance'));

  // The hook where the install_hotplug module's rule runs it (no /usr/libexec/cloud-init in this rootfs).
  const hook = /RUN\+="([^"]+)"/.exec(hotplugUdevRule('/usr/lib/cloud-init'))?.[1] as string;
  const socket = readFileSync(join(root, 'usr/lib/systemd/system/cloud-init-hotplugd.socket'), 'utf8');
  const fifo = unitValue(socket, 'ListenFIFO');
  const service = readFileSync(join(root, 'usr/lib/systemd/system/cloud-init-hotplugd.service'), 'utf8');
  // ExecStart=/bin/sh -c '…': the script as systemd hands it to sh (no ${…} in it for systemd to expand).
  const execStart = /^\/bin\/sh -c '([^']*)'$/.exec(unitValue(service, 'ExecStart'));
  assert.ok(execStart, unitValue(service, 'ExecStart'));
  assert.ok(!(execStart[1] as string).includes('${'), 'systemd would expand ${…} itself');

  // In the namespace: a remove event before the socket listens and the boot finished (the hook must write
  // nothing, as 25.1's: under systemd it waits for the FIFO, elsewhere for result.json); then the FIFO as systemd
  // makes it and holds it (fd 4) and the boot's result, an add event; then the service's command with the FIFO as fd 3.
  const script = [
    'set -e',
    'mount -t proc proc /proc',
    `mkdir -p "$(dirname "${fifo}")"`,
    `SUBSYSTEM=net DEVPATH=/devices/virtual/net/early0 ACTION=remove "${hook}"`,
    `mkfifo -m 0600 "${fifo}"`,
    `exec 4<>"${fifo}"`,
    ': > /run/cloud-init/result.json',
    `SUBSYSTEM=net DEVPATH=/devices/pci0000:00/0000:00:05.0/virtio2/net/eth1 ACTION=add "${hook}"`,
    'env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin /bin/sh -c "$SERVICE_SCRIPT" 3<&4 4<&-',
  ].join('\n');
  const r = spawnSync(
    'unshare',
    ['--uts', '--ipc', '--mount', '--pid', '--net', '--fork', '--kill-child', 'chroot', root, '/bin/sh', '-c', script],
    {
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', SERVICE_SCRIPT: execStart[1] as string },
    },
  );
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  // The service echoes what it read: the hook's one line, the early event's never written.
  assert.equal(
    r.stdout,
    'args=--subsystem=net handle --devpath=/devices/pci0000:00/0000:00:05.0/virtio2/net/eth1 --udevaction=add\n',
    r.stderr,
  );
  // The hook's own log, as 25.1's: the early event turned away, the later one handed on.
  assert.equal(
    readFileSync(join(root, 'run/cloud-init/hook-hotplug.log'), 'utf8'),
    'Not running hotplug, not ready yet\nRunning hotplug hook:  --subsystem=net handle --devpath=/devices/pci0000:00/0000:00:05.0/virtio2/net/eth1 --udevaction=add\n',
  );
  const log = readFileSync(join(root, 'var/log/cloud-init.log'), 'utf8');
  assert.match(
    log,
    /hotplug-hook called with the following arguments: \{hotplug_action: handle, subsystem: net, udevaction: add, devpath: \/devices\/pci0000:00\/0000:00:05\.0\/virtio2\/net\/eth1\}/,
    log,
  );
  assert.match(log, /hotplug not enabled for event of type net/);
});
