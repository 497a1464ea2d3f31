// renderNetwork: the renderer chosen by what the target root has (or system_info.network.renderers), files written
// under --root.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { NetworkConfigError } from '../../src/net/net-error';
import { parseNetworkDocument } from '../../src/net/parse-network-config';
import { renderNetwork, selectRenderer } from '../../src/net/render-network';
import { DryRunPlatform } from '../../src/platform/dry-run-platform';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

const model = () =>
  parseNetworkDocument({
    version: 1,
    config: [
      {
        type: 'physical',
        name: 'eth0',
        mac_address: '52:54:00:00:00:01',
        subnets: [{ type: 'static', address: '10.0.0.2/24', gateway: '10.0.0.1' }],
      },
      { type: 'nameserver', address: ['10.0.0.53'], search: ['x.example'] },
    ],
  });

function rootWith(t: Parameters<typeof tempDir>[0], files: string[]): { root: string; p: LinuxPlatform } {
  const root = tempDir(t);
  for (const f of files) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    writeFileSync(join(root, f), '');
  }
  return { root, p: new LinuxPlatform({ root, log: new Logger().for('test.ts') }) };
}

test('picks the first available renderer in cloud-init default order and writes under the root', async (t) => {
  const { root, p } = rootWith(t, ['usr/sbin/netplan', 'usr/bin/nmcli', 'etc/NetworkManager/NetworkManager.conf']);
  assert.equal(await selectRenderer(p, 'ubuntu'), 'netplan', 'eni and sysconfig are missing, netplan comes next');
  const r = await renderNetwork(p, model(), { distro: 'ubuntu' });
  assert.deepEqual(r, { renderer: 'netplan', files: ['/etc/netplan/50-cloud-init.yaml'], warnings: [] });
  assert.match(
    readFileSync(join(root, 'etc/netplan/50-cloud-init.yaml'), 'utf8'),
    /addresses:\n {12}- 10\.0\.0\.2\/24/,
  );
  const nm = await renderNetwork(p, model(), { distro: 'ubuntu', renderers: ['network-manager', 'netplan'] });
  assert.equal(nm.renderer, 'network-manager');
  assert.equal(
    statSync(join(root, 'etc/NetworkManager/system-connections/cloud-init-eth0.nmconnection')).mode & 0o777,
    0o600,
  );
});

test("netplan's file is root-only (0600), as cloud-init 25.1 and netplan's own API write it, also over an older 0644 one", async (t) => {
  const { root, p } = rootWith(t, ['usr/sbin/netplan', 'etc/netplan/50-cloud-init.yaml']);
  const file = join(root, 'etc/netplan/50-cloud-init.yaml');
  chmodSync(file, 0o644);
  await renderNetwork(p, model(), { distro: 'debian', renderer: 'netplan' });
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.match(readFileSync(file, 'utf8'), /routes:\n {12}- {3}to: default\n {16}via: 10\.0\.0\.1\n/);
});

test('eni needs ifupdown and /etc/network/interfaces; sysconfig needs a sysconfig distro', async (t) => {
  const { p } = rootWith(t, [
    'sbin/ifquery',
    'sbin/ifup',
    'sbin/ifdown',
    'etc/network/interfaces',
    'etc/sysconfig/network-scripts/network-functions',
  ]);
  assert.equal(await selectRenderer(p, 'debian'), 'eni');
  assert.equal(await selectRenderer(p, 'rhel', ['sysconfig', 'eni']), 'sysconfig');
  assert.equal(await selectRenderer(p, 'debian', ['sysconfig', 'eni']), 'eni', 'sysconfig is not available on debian');
  // openEuler's distro is named in lower case (cloud-init's and kiln's detection alike).
  assert.equal(await selectRenderer(p, 'openeuler', ['sysconfig', 'eni']), 'sysconfig');
});

test("sysconfig is also available where NetworkManager's ifcfg-rh plugin reads ifcfg files and initscripts are gone (25.1)", async (t) => {
  const { p } = rootWith(t, [
    'usr/lib64/NetworkManager/1.46.0-1.el9/libnm-settings-plugin-ifcfg-rh.so',
    'usr/bin/nmcli',
    'etc/NetworkManager/NetworkManager.conf',
  ]);
  assert.equal(await selectRenderer(p, 'rhel'), 'sysconfig');
  assert.equal(await selectRenderer(p, 'debian'), 'network-manager', 'not on a distro sysconfig does not know');
  const { p: bare } = rootWith(t, [
    'usr/lib64/NetworkManager/1.46.0-1.el9/libnm-device-plugin-team.so',
    'usr/bin/nmcli',
    'etc/NetworkManager/NetworkManager.conf',
  ]);
  assert.equal(await selectRenderer(bare, 'rhel'), 'network-manager', 'NetworkManager without the plugin');
});

test('sysconfig keeps what an existing resolv.conf holds', async (t) => {
  const { root, p } = rootWith(t, []);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/resolv.conf'), 'options rotate\nnameserver 192.0.2.1\n');
  await renderNetwork(p, model(), { distro: 'rhel', renderer: 'sysconfig' });
  assert.equal(
    readFileSync(join(root, 'etc/resolv.conf'), 'utf8'),
    '; Created by cloud-init automatically, do not edit.\n;\noptions rotate\nnameserver 192.0.2.1\nnameserver 10.0.0.53\nsearch x.example\n',
  );
});

test('sysconfig adds a name server to a resolv.conf that already has three (25.1 has no limit)', async (t) => {
  const { root, p } = rootWith(t, []);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/resolv.conf'), 'nameserver 192.0.2.1\nnameserver 192.0.2.2\nnameserver 192.0.2.3\n');
  await renderNetwork(p, model(), { distro: 'rhel', renderer: 'sysconfig' });
  assert.equal(
    readFileSync(join(root, 'etc/resolv.conf'), 'utf8'),
    '; Created by cloud-init automatically, do not edit.\n;\nnameserver 192.0.2.1\nnameserver 192.0.2.2\nnameserver 192.0.2.3\nnameserver 10.0.0.53\nsearch x.example\n',
  );
});

test("sysconfig keeps an existing /etc/sysconfig/network's own lines after its settings, as 25.1 does", async (t) => {
  const { root, p } = rootWith(t, []);
  mkdirSync(join(root, 'etc/sysconfig'), { recursive: true });
  const header = '# Created by cloud-init automatically, do not edit.\n#\n';
  writeFileSync(
    join(root, 'etc/sysconfig/network'),
    `${header}NETWORKING=no\nNETWORKING_IPV6=yes\nIPV6_AUTOCONF=yes\nHOSTNAME=box\n\nNOZEROCONF=yes\n`,
  );
  await renderNetwork(p, model(), { distro: 'rhel', renderer: 'sysconfig' });
  const want = `${header}NETWORKING=yes\nHOSTNAME=box\n\nNOZEROCONF=yes\n`;
  assert.equal(readFileSync(join(root, 'etc/sysconfig/network'), 'utf8'), want);
  await renderNetwork(p, model(), { distro: 'rhel', renderer: 'sysconfig' });
  assert.equal(readFileSync(join(root, 'etc/sysconfig/network'), 'utf8'), want, 'a second render changes nothing');
});

test('no renderer available, or an unknown one, is an error naming system_info.network.renderers', async (t) => {
  const { p } = rootWith(t, []);
  await assert.rejects(
    selectRenderer(p, 'debian'),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'system_info.network.renderers',
  );
  await assert.rejects(
    selectRenderer(p, 'debian', ['netplan', 'ifcfg']),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'system_info.network.renderers[1]',
  );
});

test('--dry-run records the writes and changes nothing', async (t) => {
  const { root, p } = rootWith(t, []);
  const dry = new DryRunPlatform(p);
  await renderNetwork(dry, model(), { distro: 'debian', renderer: 'networkd' });
  assert.deepEqual(
    dry.effects.map((e) => e.kind === 'write-file' && e.path),
    ['/etc/systemd/network/10-cloud-init-eth0.network'],
  );
  assert.equal(existsSync(join(root, 'etc/systemd')), false);
});

test('wifis are rendered by netplan only; other renderers report them as a warning', async (t) => {
  const { p } = rootWith(t, []);
  const wifi = parseNetworkDocument({
    network: { version: 2, wifis: { wlan0: { dhcp4: true, 'access-points': { ap: {} } } } },
  });
  assert.deepEqual((await renderNetwork(p, wifi, { distro: 'debian', renderer: 'netplan' })).warnings, []);
  assert.deepEqual((await renderNetwork(p, wifi, { distro: 'debian', renderer: 'networkd' })).warnings, [
    'network.wifis.wlan0: wifi configuration is only rendered by netplan; other renderers leave it out',
  ]);
});

test('networkd files belong to systemd-network when the target has that user; other files are 0644', async (t) => {
  const { root, p } = rootWith(t, []);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(
    join(root, 'etc/passwd'),
    'root:x:0:0::/root:/bin/sh\nsystemd-network:x:998:997::/run/systemd:/usr/sbin/nologin\n',
  );
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\nsystemd-network:x:997:\n');
  await renderNetwork(p, model(), { distro: 'debian', renderer: 'networkd' });
  const st = statSync(join(root, 'etc/systemd/network/10-cloud-init-eth0.network'));
  assert.deepEqual([st.uid, st.gid, st.mode & 0o777], [998, 997, 0o644]);
  const { root: bare, p: p2 } = rootWith(t, []);
  await renderNetwork(p2, model(), { distro: 'debian', renderer: 'networkd' });
  assert.equal(
    statSync(join(bare, 'etc/systemd/network/10-cloud-init-eth0.network')).uid,
    process.getuid?.() ?? 0,
    'no such user: left as written',
  );
});
