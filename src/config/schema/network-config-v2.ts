// Network config version 2, as cloud-init 25.1's own network-config v2 schema judges it where netplan cannot (25.1
// hands v2 to netplan's parser when its Python API is there): `version: 2` and the four device maps, at the top
// level or under `network:`. Device entries are open (unknown keys pass, as upstream's mappings are not closed);
// dhcp overrides, nameservers and routes are closed.
import { arrayOf, bool, int, str, strings, stringEnum } from './schema-builders';

const renderer = stringEnum('networkd', 'NetworkManager');

const dhcpOverrides = {
  type: 'object',
  additionalProperties: false,
  properties: {
    hostname: str,
    'route-metric': int,
    'send-hostname': bool,
    'use-dns': bool,
    'use-domains': str,
    'use-hostname': bool,
    'use-mtu': bool,
    'use-ntp': bool,
    'use-routes': bool,
  },
} as const;

const dhcpSwitch = { type: ['boolean', 'string'], enum: ['yes', 'no', true, false] } as const;

/** What every kind of device takes. */
const DEVICE = {
  type: 'object',
  properties: {
    renderer,
    dhcp4: dhcpSwitch,
    dhcp6: dhcpSwitch,
    'dhcp4-overrides': dhcpOverrides,
    'dhcp6-overrides': dhcpOverrides,
    addresses: strings,
    gateway4: str,
    gateway6: str,
    optional: bool,
    mtu: int,
    nameservers: { type: 'object', additionalProperties: false, properties: { search: strings, addresses: strings } },
    routes: arrayOf({
      type: 'object',
      required: ['to'],
      additionalProperties: false,
      properties: { to: str, via: str, metric: int },
    }),
  },
} as const;

function device<const P>(properties: P) {
  return { allOf: [DEVICE], properties } as const;
}

const ETHERNET = device({
  match: { type: 'object', additionalProperties: false, properties: { name: str, macaddress: str, driver: str } },
  'set-name': str,
  wakeonlan: bool,
});

const BOND = device({
  interfaces: strings,
  parameters: {
    type: 'object',
    properties: {
      mode: stringEnum(
        'balance-rr',
        'active-backup',
        'balance-xor',
        'broadcast',
        '802.3ad',
        'balance-tlb',
        'balance-alb',
      ),
      'lacp-rate': stringEnum('fast', 'slow'),
      'mii-monitor-interval': str,
      'min-links': int,
      'transmit-hash-policy': stringEnum('layer2', 'layer3+4', 'layer2+3', 'encap2+3', 'encap3+4'),
      'ad-select': stringEnum('stable', 'bandwidth', 'count'),
      'all-slaves-active': bool,
      'arp-interval': int,
      'arp-ip-targets': strings,
      'arp-validate': stringEnum('none', 'active', 'backup', 'all'),
      'arp-all-targets': stringEnum('any', 'all'),
      'up-delay': int,
      'down-delay': int,
      'fail-over-mac-policy': stringEnum('none', 'active', 'follow'),
      'gratuitous-arp': int,
      'packets-per-slave': int,
      'primary-reselect-policy': stringEnum('always', 'better', 'failure'),
      'learn-packet-interval': str,
    },
  },
});

const BRIDGE = device({
  interfaces: strings,
  parameters: {
    type: 'object',
    properties: {
      'ageing-time': int,
      priority: int,
      'forward-delay': int,
      'hello-time': int,
      'max-age': int,
      'path-cost': int,
      stp: bool,
    },
  },
});

const VLAN = device({ id: int, link: str });

const devices = <const D>(d: D) => ({ type: 'object', additionalProperties: d }) as const;

const VERSION_2 = {
  type: 'object',
  additionalProperties: false,
  required: ['version'],
  properties: {
    version: { type: 'integer', enum: [2] },
    renderer,
    ethernets: devices(ETHERNET),
    bonds: devices(BOND),
    bridges: devices(BRIDGE),
    vlans: devices(VLAN),
  },
} as const;

export const NETWORK_CONFIG_V2_SCHEMA = {
  oneOf: [VERSION_2, { required: ['network'], properties: { network: VERSION_2 }, additionalProperties: false }],
} as const;
