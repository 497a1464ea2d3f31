// OpenStack network_data.json to network config v1 as cloud-init 25.1's convert_net_json: DNS services become the
// subnet's, routes keep only their route keys, bond options are spelled as cloud-init's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertOpenStackNetworkData } from '../../src/net/convert-openstack';

const MACS = new Map([
  ['fa:16:3e:00:00:01', 'ens3'],
  ['fa:16:3e:00:00:02', 'ens4'],
]);

test("DNS services of a network's routes, then of the network itself (no repeats), are the subnet's nameservers; routes drop their services", () => {
  const v1 = convertOpenStackNetworkData(
    {
      links: [{ id: 'tap-a', type: 'phy', ethernet_mac_address: 'fa:16:3e:00:00:01' }],
      networks: [
        {
          id: 'net-1',
          type: 'ipv4',
          link: 'tap-a',
          ip_address: '10.0.0.5',
          netmask: '255.255.255.0',
          routes: [
            {
              network: '0.0.0.0',
              netmask: '0.0.0.0',
              gateway: '10.0.0.1',
              services: [
                { type: 'dns', address: '10.0.0.53' },
                { type: 'ntp', address: '10.0.0.123' },
              ],
            },
          ],
          services: [
            { type: 'dns', address: '10.0.0.54' },
            { type: 'dns', address: '10.0.0.53' },
          ],
        },
      ],
      services: [{ type: 'dns', address: '8.8.8.8' }],
    },
    MACS,
  );
  const subnet = (v1.config[0] as { subnets: Array<Record<string, unknown>> }).subnets[0];
  assert.deepEqual(subnet?.dns_nameservers, ['10.0.0.53', '10.0.0.54']);
  assert.deepEqual(subnet?.routes, [{ network: '0.0.0.0', netmask: '0.0.0.0', gateway: '10.0.0.1' }]);
  assert.deepEqual(v1.config[1], { type: 'nameserver', address: '8.8.8.8' });
});

test("a bond's bond_* options become bond-* (bond_links are its members)", () => {
  const v1 = convertOpenStackNetworkData(
    {
      links: [
        { id: 'tap-a', type: 'phy', ethernet_mac_address: 'fa:16:3e:00:00:01' },
        { id: 'tap-b', type: 'phy', ethernet_mac_address: 'fa:16:3e:00:00:02' },
        {
          id: 'bond-1',
          type: 'bond',
          bond_links: ['tap-a', 'tap-b'],
          bond_mode: '802.3ad',
          bond_miimon: 100,
          bond_xmit_hash_policy: 'layer3+4',
          ethernet_mac_address: 'fa:16:3e:00:00:01',
        },
      ],
      networks: [],
    },
    MACS,
  );
  const bond = v1.config.find((c) => c.type === 'bond') as Record<string, unknown>;
  assert.deepEqual(bond.params, { 'bond-mode': '802.3ad', 'bond-miimon': 100, 'bond-xmit_hash_policy': 'layer3+4' });
  assert.equal(bond.mac_address, 'fa:16:3e:00:00:01');
  assert.deepEqual(bond.bond_interfaces, ['ens3', 'ens4']);
});
