// Ec2's network format as the network step selects it: every NIC, or only the fallback NIC by DHCP.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectNetworkConfig } from '../../src/net/select-network-config';
import type { NicFacts } from '../../src/net/sys-class-net';
import { ec2NetworkFormat } from '../../src/sources/ec2/network-format';
import { networkFormatByName } from '../../src/sources/registry';

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

test("the registry resolves the 'ec2' format name to Ec2's format", () => {
  assert.equal(networkFormatByName('ec2'), ec2NetworkFormat);
});

test("Ec2's apply_full_imds_network_config: false renders DHCP on the fallback NIC only (cloud-init's primary-only mode)", () => {
  const nics = [
    nic('ens6', { carrier: 1, mac: '0a:00:00:00:00:02' }),
    nic('ens5', { carrier: 1, mac: '0a:00:00:00:00:01' }),
  ];
  const imds = {
    interfaces: {
      macs: {
        '0a:00:00:00:00:01': { 'device-number': '0', 'local-ipv4s': '10.0.0.5' },
        '0a:00:00:00:00:02': { 'device-number': '1', 'local-ipv4s': '10.0.1.5' },
      },
    },
  };
  const full = selectNetworkConfig({
    kernelCmdline: '',
    nics,
    datasourceNetwork: { format: 'ec2', config: imds },
    datasourceFormat: ec2NetworkFormat,
  });
  assert.deepEqual(Object.keys((!full.disabled && (full.config as { ethernets: object }).ethernets) || {}).sort(), [
    'ens5',
    'ens6',
  ]);
  const primary = selectNetworkConfig({
    kernelCmdline: '',
    nics,
    datasourceNetwork: { format: 'ec2', config: imds, full: false },
    datasourceFormat: ec2NetworkFormat,
  });
  assert.deepEqual(!primary.disabled && primary.config, {
    version: 2,
    ethernets: { ens5: { dhcp4: true, dhcp6: false, match: { macaddress: '0a:00:00:00:00:01' }, 'set-name': 'ens5' } },
  });
});
