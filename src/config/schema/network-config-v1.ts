// Network config version 1, as cloud-init 25.1's network-config v1 schema judges it: a `config` list whose entries
// are each one of the typed mappings (physical, bond, bridge, vlan, nameserver, route), with their keys closed, at
// the top level or under `network:`. Each entry kind carries the title `anyOf_type_<type>`, which upstream's anyOf
// uses to report the errors of the kind an entry names instead of jsonschema's best match (jsonschema-errors.ts).
import { arrayOf, bool, int, str, strings, stringEnum } from './schema-builders';

const route = {
  type: 'object',
  additionalProperties: false,
  oneOf: [{ required: ['network', 'gateway'] }, { required: ['destination', 'gateway'] }],
  properties: { type: stringEnum('route'), network: str, destination: str, netmask: str, gateway: str, metric: int },
} as const;

const subnet = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: stringEnum(
      'dhcp4',
      'dhcp',
      'dhcp6',
      'static',
      'static6',
      'ipv6_dhcpv6-stateful',
      'ipv6_dhcpv6-stateless',
      'ipv6_slaac',
      'manual',
    ),
    control: stringEnum('manual', 'auto', 'hotplug'),
    address: str,
    netmask: str,
    broadcast: str,
    gateway: str,
    dns_nameservers: strings,
    dns_search: strings,
    routes: arrayOf(route),
    ipv4: bool,
    ipv6: bool,
  },
} as const;

const subnets = arrayOf(subnet);

/** One kind of `config` entry: a closed mapping whose `type` is KIND. */
function entry<const K extends string, const R extends readonly string[], const P>(
  kind: K,
  required: R,
  properties: P,
) {
  return {
    title: `anyOf_type_${kind}`,
    type: 'object',
    additionalProperties: false,
    required,
    properties: { type: stringEnum(kind), ...properties },
  } as const;
}

const boundedInt = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum }) as const;

const BOND_PARAMS = {
  additionalProperties: false,
  properties: {
    'bond-active_slave': str,
    'bond-ad_actor_key': str,
    'bond-ad_actor_sys_prio': int,
    'bond-ad_actor_system': str,
    'bond-ad_aggregator': str,
    'bond-ad_num_ports': int,
    'bond-ad_partner_key': str,
    'bond-ad_partner_mac': str,
    'bond-ad_select': str,
    'bond-ad_user_port_key': str,
    'bond-all_slaves_active': str,
    'bond-arp_all_targets': str,
    'bond-arp_interval': int,
    'bond-arp_ip_target': str,
    'bond-arp_validate': bool,
    'bond-downdelay': int,
    'bond-fail_over_mac': str,
    'bond-lacp_rate': str,
    'bond-lp_interval': int,
    'bond-miimon': int,
    'bond-mii_status': str,
    'bond-min_links': int,
    'bond-mode': stringEnum(
      'balance-rr',
      'active-backup',
      'balance-alb',
      'balance-tcp',
      'balance-tlb',
      'balance-slb',
      'balance-xor',
      'broadcast',
      '802.3ad',
    ),
    'bond-num_grat_arp': boundedInt(0, 255),
    'bond-num_unsol_na': boundedInt(0, 255),
    'bond-packets_per_slave': boundedInt(0, 65535),
    'bond-peer_notif_delay': int,
    'bond-primary': str,
    'bond-primary_reselect': stringEnum('always', 'better', 'failure'),
    'bond-queue_id': str,
    'bond-resend_igmp': str,
    'bond-slaves': str,
    'bond-tlb_dynamic_lb': str,
    'bond-updelay': str,
    'bond-use_carrier': str,
    'bond-xmit_hash_policy': str,
  },
} as const;

const BRIDGE_PARAMS = {
  type: 'object',
  additionalProperties: false,
  properties: {
    bridge_ageing: int,
    bridge_bridgeprio: int,
    bridge_fd: int,
    bridge_hello: int,
    bridge_hw: str,
    bridge_maxage: int,
    bridge_maxwait: int,
    bridge_pathcost: strings,
    bridge_portprio: strings,
    bridge_ports: strings,
    bridge_stp: stringEnum('on', 'off'),
    bridge_waitport: strings,
  },
} as const;

/** The kinds in upstream's order: the anyOf tries them in it. */
const CONFIG_ENTRY = {
  anyOf: [
    entry('bond', ['type', 'name'], {
      name: str,
      mac_address: str,
      bond_interfaces: strings,
      mtu: int,
      params: BOND_PARAMS,
      subnets,
    }),
    entry('bridge', ['type', 'name', 'bridge_interfaces', 'params'], {
      name: str,
      bridge_interfaces: strings,
      params: BRIDGE_PARAMS,
      subnets,
    }),
    entry('physical', ['type', 'name'], {
      name: { type: 'string', maxLength: 15 },
      mac_address: str,
      mtu: { type: ['integer', 'null'] },
      subnets,
      'accept-ra': bool,
    }),
    entry('nameserver', ['type', 'address'], {
      address: { type: ['array', 'string'], items: str },
      search: strings,
      interface: str,
    }),
    { ...route, title: 'anyOf_type_route' },
    entry('vlan', ['type', 'name', 'vlan_link', 'vlan_id'], {
      name: str,
      vlan_link: str,
      vlan_id: int,
      mtu: int,
      subnets,
      mac_address: str,
    }),
  ],
} as const;

const VERSION_1 = {
  type: 'object',
  additionalProperties: false,
  required: ['config', 'version'],
  properties: { version: { type: 'integer', enum: [1] }, config: arrayOf(CONFIG_ENTRY) },
} as const;

export const NETWORK_CONFIG_V1_SCHEMA = {
  oneOf: [VERSION_1, { required: ['network'], properties: { network: VERSION_1 }, additionalProperties: false }],
} as const;
