// Selection in cloud-init's order, kernel and initramfs config, and the DHCP fallback read from a fake /sys/class/net.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { candidateNics } from '../../src/net/fallback';
import { parseNetworkDocument } from '../../src/net/parse-network-config';
import type { NetworkFormat, NetworkFormatContext } from '../../src/net/network-format';
import { NetworkConfigError } from '../../src/net/net-error';
import { selectNetworkConfig } from '../../src/net/select-network-config';
import { readSysClassNet, type NicFacts } from '../../src/net/sys-class-net';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

function nic(name: string, extra: Partial<NicFacts> = {}): NicFacts {
  return {
    name,
    mac: `52:54:00:00:00:${(name.length * 7).toString(16).padStart(2, '0')}`,
    isBridge: false,
    isBond: false,
    hasMaster: false,
    standbyFeature: false,
    ...extra,
  };
}

const V2 = { version: 2, ethernets: { ens3: { dhcp4: true } } };
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

test('order: kernel cmdline, then initramfs, then system config, then datasource, then fallback', () => {
  const nics = [nic('eth0', { carrier: 1 })];
  const ds = { format: 'v2' as const, config: { version: 2, ethernets: { ds0: { dhcp4: true } } } };
  const cmd = `ro network-config=${b64('version: 2\nethernets:\n  cmd0:\n    dhcp4: true\n')} quiet`;
  const pick = (o: Partial<Parameters<typeof selectNetworkConfig>[0]>) =>
    selectNetworkConfig({ kernelCmdline: '', nics, ...o });
  let s = pick({ kernelCmdline: cmd, systemConfig: V2, datasourceNetwork: ds });
  assert.equal(s.disabled ? '' : s.source, 'cmdline');
  assert.ok(!s.disabled && s.state.interfaces.has('cmd0'));
  s = pick({ systemConfig: V2, datasourceNetwork: ds });
  assert.equal(s.disabled ? '' : s.source, 'system_cfg');
  s = pick({ datasourceNetwork: ds });
  assert.equal(s.disabled ? '' : s.source, 'ds');
  s = pick({});
  assert.ok(!s.disabled && s.source === 'fallback');
  assert.deepEqual(!s.disabled && s.config, {
    ethernets: { eth0: { dhcp4: true, 'set-name': 'eth0', match: { macaddress: nics[0]?.mac } } },
    version: 2,
  });
  s = pick({ datasourceNetwork: ds, order: ['ds', 'system_cfg'], systemConfig: V2 });
  assert.equal(s.disabled ? '' : s.source, 'ds', "a datasource's own order is honoured");
});

test('disabled: kernel network-config=disabled, network: {config: disabled}, upgraded-network', () => {
  const nics = [nic('eth0', { carrier: 1 })];
  let s = selectNetworkConfig({ kernelCmdline: 'network-config=disabled', systemConfig: V2, nics });
  assert.deepEqual(s, {
    disabled: true,
    source: 'cmdline',
    reason: 'network-config=disabled on the kernel command line',
  });
  s = selectNetworkConfig({
    kernelCmdline: '',
    systemConfig: { config: 'disabled' },
    datasourceNetwork: { format: 'v2', config: V2 },
    nics,
  });
  assert.ok(s.disabled && s.source === 'system_cfg' && /config: disabled/.test(s.reason));
  s = selectNetworkConfig({ kernelCmdline: '', upgradedNetwork: true, nics });
  assert.ok(s.disabled && s.source === 'upgraded-network');
  s = selectNetworkConfig({ kernelCmdline: '', nics: [] });
  assert.ok(s.disabled && s.source === 'none', 'no NIC: nothing to fall back to');
});

test('kernel network-config= may be gzip-compressed', () => {
  const cmd = `network-config=${b64(gzipSync('network:\n  version: 1\n  config:\n    - type: physical\n      name: eth9\n      subnets: [{type: dhcp}]\n'))}`;
  const s = selectNetworkConfig({ kernelCmdline: cmd, nics: [] });
  assert.ok(!s.disabled && s.state.interfaces.get('eth9')?.subnets[0]?.type === 'dhcp');
});

test('initramfs /run/net-*.conf applies only with ip= on the cmdline, and becomes v1 static config', () => {
  const files = {
    '/run/net-eth0.conf':
      "DEVICE='eth0'\nPROTO='none'\nIPV4ADDR='10.0.0.5'\nIPV4NETMASK='255.255.255.0'\nIPV4GATEWAY='10.0.0.1'\nIPV4DNS0='10.0.0.53'\nIPV4DNS1='0.0.0.0'\nDOMAINSEARCH='a.example'\n",
  };
  const nics = [nic('eth0', { carrier: 1, mac: '52:54:00:00:00:aa' })];
  let s = selectNetworkConfig({ kernelCmdline: 'ro', runNetFiles: files, nics });
  assert.ok(!s.disabled && s.source === 'fallback', 'without ip= the files are ignored');
  s = selectNetworkConfig({ kernelCmdline: 'ro ip=dhcp', runNetFiles: files, nics });
  assert.ok(!s.disabled && s.source === 'initramfs');
  const eth0 = !s.disabled ? s.state.interfaces.get('eth0') : undefined;
  assert.equal(eth0?.mac_address, '52:54:00:00:00:aa');
  assert.deepEqual(eth0?.subnets[0], {
    type: 'static',
    control: 'manual',
    address: '10.0.0.5',
    netmask: '255.255.255.0',
    gateway: '10.0.0.1',
    dns_nameservers: ['10.0.0.53'],
    dns_search: ['a.example'],
    prefix: 24,
    routes: [],
  });
});

test('fallback order: connected before possibly connected, eth0 first, natural sort, skipped kinds', () => {
  const nics = [
    nic('ens10', { carrier: 1 }),
    nic('ens3', { carrier: 1 }),
    nic('eth0', { operstate: 'down' }),
    nic('veth1', { carrier: 1 }),
    nic('br0', { carrier: 1, isBridge: true }),
    nic('bond0', { carrier: 1, isBond: true }),
    nic('ens4', { carrier: 1, driver: 'mlx' }),
    nic('ens5', { carrier: 0, operstate: 'up' }),
    nic('nomac', { carrier: 1, mac: undefined } as Partial<NicFacts>),
    nic('lo', { carrier: 1 }),
  ];
  assert.deepEqual(candidateNics(nics, ['mlx']), ['ens3', 'ens10', 'eth0']);
  assert.deepEqual(
    candidateNics([
      nic('ens10', { carrier: 1 }),
      nic('eth0', { carrier: 1 }),
      nic('ens3', { carrier: 1 }),
      nic('ens2', { dormant: 1 }),
    ]),
    ['eth0', 'ens3', 'ens10', 'ens2'],
  );
});

test('readSysClassNet reads a /sys/class/net tree under the platform root', async (t) => {
  const root = tempDir(t);
  const mk = (dev: string, files: Record<string, string>) => {
    for (const [f, v] of Object.entries(files)) {
      mkdirSync(join(root, 'sys/class/net', dev, f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : ''), {
        recursive: true,
      });
      writeFileSync(join(root, 'sys/class/net', dev, f), `${v}\n`);
    }
  };
  mk('lo', { address: '00:00:00:00:00:00', carrier: '1' });
  mk('ens3', {
    address: '52:54:00:AB:CD:EF',
    carrier: '1',
    operstate: 'up',
    'device/uevent': 'DRIVER=virtio_net\nPCI_ID=1AF4:1000',
  });
  mk('br0', { address: '52:54:00:00:00:02', carrier: '1', 'bridge/stp_state': '0' });
  const nics = await readSysClassNet(new LinuxPlatform({ root, log: new Logger().for('test.ts') }));
  const ens3 = nics.find((n) => n.name === 'ens3');
  assert.deepEqual(ens3, {
    name: 'ens3',
    mac: '52:54:00:ab:cd:ef',
    driver: 'virtio_net',
    carrier: 1,
    operstate: 'up',
    isBridge: false,
    isBond: false,
    hasMaster: false,
    standbyFeature: false,
  });
  assert.equal(nics.find((n) => n.name === 'br0')?.isBridge, true);
  const s = selectNetworkConfig({ kernelCmdline: '', nics });
  assert.ok(!s.disabled && s.source === 'fallback' && s.state.interfaces.has('ens3'));
});

test('at boot, v2 match by name glob or driver names the real NICs; net-convert (no NICs) keeps the id', () => {
  const nics = [
    nic('ens3', { carrier: 1, driver: 'virtio_net' }),
    nic('ens4', { carrier: 1, driver: 'e1000' }),
    nic('eth9', { carrier: 1, driver: 'virtio_net' }),
  ];
  const systemConfig = {
    version: 2,
    ethernets: {
      'all-en': { match: { name: 'en[s]*' }, dhcp4: true },
      virt: { match: { driver: 'virtio_net', name: 'eth?' }, dhcp6: true },
    },
  };
  const s = selectNetworkConfig({ kernelCmdline: '', systemConfig, nics });
  assert.ok(!s.disabled);
  assert.deepEqual([...s.state.interfaces.keys()], ['ens3', 'ens4', 'eth9']);
  assert.equal(s.state.interfaces.get('eth9')?.subnets[0]?.type, 'dhcp6');
  assert.equal(s.state.interfaces.get('eth9')?.driver, 'virtio_net');
  const plain = parseNetworkDocument(systemConfig);
  assert.deepEqual([...plain.interfaces.keys()], ['all-en', 'virt'], 'without NICs, as cloud-init does');
});

test("a format net/ does not know is converted by the one the caller hands in, with the machine's facts; an unregistered name is an error", () => {
  const nics = [nic('ens5', { carrier: 1, mac: '0a:00:00:00:00:01' })];
  const seen: NetworkFormatContext[] = [];
  const format: NetworkFormat = {
    name: 'somecloud',
    toNetworkConfig(config, ctx) {
      seen.push(ctx);
      return { version: 2, ethernets: { [ctx.macs.get(String(config)) ?? 'none']: { dhcp4: true } } };
    },
  };
  const s = selectNetworkConfig({
    kernelCmdline: '',
    nics,
    runNetFiles: { '/run/net-x.conf': 'x' },
    blacklistDrivers: ['mlx4_core'],
    renderer: 'netplan',
    datasourceNetwork: { format: 'somecloud', config: '0a:00:00:00:00:01', full: false },
    datasourceFormat: format,
  });
  assert.equal(!s.disabled && s.source, 'ds');
  assert.deepEqual(!s.disabled && [...s.state.interfaces.keys()], ['ens5']);
  assert.equal(seen.length, 1);
  assert.deepEqual([...(seen[0]?.macs ?? [])], [['0a:00:00:00:00:01', 'ens5']]);
  assert.deepEqual(seen[0]?.nics, nics);
  assert.deepEqual(seen[0]?.runNetFiles, { '/run/net-x.conf': 'x' });
  assert.deepEqual(seen[0]?.blacklistDrivers, ['mlx4_core']);
  assert.equal(seen[0]?.renderer, 'netplan');
  assert.equal(seen[0]?.full, false);
  assert.throws(
    () =>
      selectNetworkConfig({
        kernelCmdline: '',
        nics,
        datasourceNetwork: { format: 'othercloud', config: {} },
        datasourceFormat: format,
      }),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'datasource network' && /"othercloud"/.test(e.message),
  );
});
