// Oracle's network config: the primary VNIC by DHCP, secondaries static with MTU 9000, the iSCSI initramfs config kept,
// and the source's order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertOracleNetwork, oracleNetworkFormat } from '../../src/sources/oracle/network-format';
import { selectNetworkConfig } from '../../src/net/select-network-config';
import type { NicFacts } from '../../src/net/sys-class-net';
import { ORACLE_NETWORK_ORDER } from '../../src/sources/oracle/oracle';

function nic(name: string, mac: string, extra: Partial<NicFacts> = {}): NicFacts {
  return {
    name,
    mac,
    driver: 'mlx5_core',
    isBridge: false,
    isBond: false,
    hasMaster: false,
    standbyFeature: false,
    ...extra,
  };
}

const VNICS = [
  {
    vnicId: 'ocid1.vnic.primary',
    privateIp: '10.0.0.8',
    vlanTag: 0,
    macAddr: '02:00:17:05:D1:DB',
    virtualRouterIp: '10.0.0.1',
    subnetCidrBlock: '10.0.0.0/24',
  },
  {
    vnicId: 'ocid1.vnic.second',
    privateIp: '10.0.4.5',
    vlanTag: 1,
    macAddr: '02:00:17:0d:6b:be',
    virtualRouterIp: '10.0.4.1',
    subnetCidrBlock: '10.0.4.0/22',
  },
];
const NICS = [nic('ens3', '02:00:17:05:d1:db'), nic('ens5', '02:00:17:0d:6b:be')];
const KLIBC = {
  '/run/net-ens3.conf':
    "DEVICE='ens3'\nPROTO='dhcp'\nIPV4ADDR='10.0.0.8'\nIPV4NETMASK='255.255.255.0'\nIPV4GATEWAY='10.0.0.1'\nfilename='/boot/ipxe'\n",
};

test('a VM: the primary VNIC by DHCP and every other VNIC statically, MTU 9000, named by MAC (as cloud-init 22.4)', () => {
  assert.deepEqual(convertOracleNetwork({ vnics: VNICS, configureSecondaryNics: false }, NICS, {}), {
    version: 1,
    config: [
      { name: 'ens3', type: 'physical', mac_address: '02:00:17:05:d1:db', mtu: 9000, subnets: [{ type: 'dhcp' }] },
      {
        name: 'ens5',
        type: 'physical',
        mac_address: '02:00:17:0d:6b:be',
        mtu: 9000,
        subnets: [{ type: 'static', address: '10.0.4.5/22' }],
      },
    ],
  });
});

test('a VNIC whose MAC is on no interface here is skipped; nothing left means the fallback', () => {
  const cfg = convertOracleNetwork({ vnics: VNICS, configureSecondaryNics: false }, [NICS[1] as NicFacts], {});
  assert.ok(cfg, 'a network config');
  assert.deepEqual(
    (cfg.config as Array<{ name: string }>).map((c) => c.name),
    ['ens5'],
  );
  assert.equal(convertOracleNetwork({ vnics: VNICS, configureSecondaryNics: true }, [], {}), undefined);
  assert.equal(
    convertOracleNetwork({ configureSecondaryNics: false }, NICS, {}),
    undefined,
    'no vnics fetched: nothing',
  );
});

test('iSCSI root: the initramfs config is kept; secondaries only with configure_secondary_nics, never on bare metal', () => {
  const off = convertOracleNetwork({ configureSecondaryNics: false }, NICS, KLIBC);
  assert.deepEqual(off?.config, [
    {
      type: 'physical',
      name: 'ens3',
      mac_address: '02:00:17:05:d1:db',
      subnets: [{ type: 'dhcp', control: 'manual', netmask: '255.255.255.0', gateway: '10.0.0.1' }],
    },
  ]);
  const on = convertOracleNetwork({ vnics: VNICS, configureSecondaryNics: true }, NICS, KLIBC);
  assert.ok(on, 'a network config');
  assert.deepEqual(
    (on.config as Array<{ name: string }>).map((c) => c.name),
    ['ens3', 'ens5'],
  );
  const bareMetal = VNICS.map((v, i) => ({ ...v, nicIndex: i }));
  const bm = convertOracleNetwork({ vnics: bareMetal, configureSecondaryNics: true }, NICS, KLIBC);
  assert.ok(bm, 'a network config');
  assert.deepEqual(
    (bm.config as Array<{ name: string }>).map((c) => c.name),
    ['ens3'],
  );
});

test('IPv6: a primary with an IPv6 subnet and no private IP is dhcp6; a secondary gets its IPv6 address too, with its own prefix (cloud-init 25.1 but for that prefix)', () => {
  const vnics = [
    { macAddr: '02:00:17:05:d1:db', ipv6Addresses: ['2603:c020::8'], ipv6SubnetCidrBlock: '2603:c020::/64' },
    { ...VNICS[1], ipv6Addresses: ['2603:c020:4::5'], ipv6SubnetCidrBlock: '2603:c020:4::/64' },
  ];
  const cfg = convertOracleNetwork({ vnics, configureSecondaryNics: false }, NICS, {});
  assert.ok(cfg, 'a network config');
  assert.deepEqual(
    (cfg.config as Array<{ subnets: unknown }>).map((c) => c.subnets),
    [
      [{ type: 'dhcp6' }],
      [
        { type: 'static', address: '10.0.4.5/22' },
        { type: 'static', address: '2603:c020:4::5/64' },
      ],
    ],
  );
});

test('a malformed VNIC ends the list there (cloud-init swallows the error and keeps what it had)', () => {
  const cfg = convertOracleNetwork(
    { vnics: [VNICS[0], { ...VNICS[1], subnetCidrBlock: 'garbage' }], configureSecondaryNics: false },
    NICS,
    {},
  );
  assert.ok(cfg, 'a network config');
  assert.deepEqual(
    (cfg.config as Array<{ name: string }>).map((c) => c.name),
    ['ens3'],
  );
});

test('a netfailover master is not matched by MAC (its standby devices share it)', () => {
  const cfg = convertOracleNetwork(
    { vnics: VNICS, configureSecondaryNics: false },
    [nic('ens3', '02:00:17:05:d1:db', { driver: 'virtio_net', standbyFeature: true }), NICS[1] as NicFacts],
    {},
  );
  assert.ok(cfg, 'a network config');
  const first = (cfg.config as Array<Record<string, unknown>>)[0];
  assert.equal(first?.name, 'ens3');
  assert.ok(!('mac_address' in (first ?? {})));
});

test("selection: the system config's network, then Oracle's config, then the initramfs files, in 25.1's order", () => {
  const ds = {
    format: 'oracle' as const,
    config: { vnics: VNICS, configureSecondaryNics: true },
    order: ORACLE_NETWORK_ORDER,
  };
  const system = { version: 2, ethernets: { x: { dhcp4: true } } };
  const withSystem = selectNetworkConfig({
    kernelCmdline: 'ip=dhcp',
    runNetFiles: KLIBC,
    openIscsi: true,
    systemConfig: system,
    datasourceNetwork: ds,
    datasourceFormat: oracleNetworkFormat,
    nics: NICS,
  });
  assert.ok(!withSystem.disabled);
  assert.equal(withSystem.source, 'system_cfg', '25.1 puts SYSTEM_CFG before DS (22.4 had it last)');
  const s = selectNetworkConfig({
    kernelCmdline: 'ip=dhcp',
    runNetFiles: KLIBC,
    openIscsi: true,
    datasourceNetwork: ds,
    datasourceFormat: oracleNetworkFormat,
    nics: NICS,
  });
  assert.ok(!s.disabled);
  assert.equal(s.source, 'ds');
  assert.ok(s.state.interfaces.has('ens3') && s.state.interfaces.has('ens5'), 'the iSCSI NIC and the secondary VNIC');
  assert.equal(s.state.interfaces.get('ens5')?.mtu, 9000);
});

test('a VNIC whose network cannot be read ends the list, the primary too (25.1 reads it first)', () => {
  assert.equal(
    convertOracleNetwork(
      { vnics: [{ ...VNICS[0], subnetCidrBlock: 'garbage' }, VNICS[1]], configureSecondaryNics: false },
      NICS,
      {},
    ),
    undefined,
  );
  assert.equal(
    convertOracleNetwork(
      {
        vnics: [{ macAddr: '02:00:17:05:d1:db', ipv6SubnetCidrBlock: '2603:c020::/64' }],
        configureSecondaryNics: false,
      },
      NICS,
      {},
    ),
    undefined,
    'IPv6-only without an address',
  );
});
