// Vultr's v1.json `interfaces` (or its ready-made `cloud_interfaces`) converted to network config v1, as cloud-init's
// helpers/vultr.py does.
import { isObj, list, obj, str, type Obj } from '../../net/check';
import { NetworkConfigError } from '../../net/net-error';
import type { NetworkFormat } from '../../net/network-format';

/**
 * What the Vultr source hands over: the metadata's `interfaces`, or `cloud_interfaces` when Vultr gives a finished
 * config.
 */
export interface VultrNetwork {
  interfaces?: unknown;
  cloudInterfaces?: unknown;
}

/** Vultr's resolvers, which cloud-init writes for every instance. */
const VULTR_NAMESERVERS = ['108.61.10.10', '2001:19f0:300:1704::6'];

function nameFor(mac: string, macs: Map<string, string>, key: string): string {
  const name = macs.get(mac.toLowerCase());
  // cloud-init raises here too: half a config would strand the instance.
  if (!name) throw new NetworkConfigError(key, `interface ${mac} could not be found on the system`);
  return name;
}

/** The optional additional IPv4/IPv6 addresses of one interface, as static subnets (routes kept). */
function additionalSubnets(iface: Obj, key: string): Obj[] {
  const out: Obj[] = [];
  const v4 = isObj(iface.ipv4) ? iface.ipv4 : undefined;
  for (const [i, a] of (v4 && Array.isArray(v4.additional) ? v4.additional : []).entries()) {
    const add = obj(a, `${key}.ipv4.additional[${i}]`);
    const sub: Obj = {
      type: 'static',
      control: 'auto',
      address: str(add.address, `${key}.ipv4.additional[${i}].address`),
      netmask: str(add.netmask, `${key}.ipv4.additional[${i}].netmask`),
    };
    if (add.routes !== undefined) sub.routes = add.routes;
    out.push(sub);
  }
  const v6 = isObj(iface.ipv6) ? iface.ipv6 : undefined;
  for (const [i, a] of (v6 && Array.isArray(v6.additional) ? v6.additional : []).entries()) {
    const add = obj(a, `${key}.ipv6.additional[${i}]`);
    const sub: Obj = {
      type: 'static6',
      control: 'auto',
      address: `${str(add.network, `${key}.ipv6.additional[${i}].network`)}/${String(add.prefix)}`,
    };
    if (add.routes !== undefined) sub.routes = add.routes;
    out.push(sub);
  }
  return out;
}

/** One NIC: the first (public) takes DHCPv4 and SLAAC, the others their static private IPv4 address. */
function nicConfig(raw: unknown, key: string, primary: boolean, macs: Map<string, string>): Obj {
  const iface = obj(raw, key);
  const mac = str(iface.mac, `${key}.mac`);
  const cfg: Obj = { name: nameFor(mac, macs, `${key}.mac`), type: 'physical', mac_address: mac };
  let subnets: Obj[];
  if (primary) {
    cfg['accept-ra'] = 1;
    subnets = [
      { type: 'dhcp', control: 'auto' },
      { type: 'ipv6_slaac', control: 'auto' },
    ];
  } else {
    const v4 = obj(iface.ipv4, `${key}.ipv4`);
    subnets = [
      {
        type: 'static',
        control: 'auto',
        address: str(v4.address, `${key}.ipv4.address`),
        netmask: str(v4.netmask, `${key}.ipv4.netmask`),
      },
    ];
  }
  if (iface.mtu !== undefined) cfg.mtu = iface.mtu;
  if (iface['accept-ra'] !== undefined) cfg['accept-ra'] = iface['accept-ra'];
  if (iface.routes !== undefined) (subnets[0] as Obj).routes = iface.routes;
  cfg.subnets = [...subnets, ...additionalSubnets(iface, key)];
  return cfg;
}

/**
 * INPUT as the Vultr source hands it over; MACS maps this machine's lower-case MACs to interface names.
 * `cloud_interfaces` is Vultr's own v1 config: only its NICs get their names. Otherwise Vultr's resolvers, the
 * first interface (public) and every further one not marked `unconfigured`.
 */
export function convertVultrNetwork(input: unknown, macs: Map<string, string>): Obj {
  const root = obj(input, 'vultr');
  if (root.cloudInterfaces !== undefined && root.cloudInterfaces !== null) {
    const given = obj(root.cloudInterfaces, 'vultr.cloud_interfaces');
    const config = list(given.config, 'vultr.cloud_interfaces.config').map((c, i) => {
      if (!isObj(c) || c.type !== 'physical') return c;
      const mac = str(c.mac_address, `vultr.cloud_interfaces.config[${i}].mac_address`);
      return { ...c, name: nameFor(mac, macs, `vultr.cloud_interfaces.config[${i}].mac_address`) };
    });
    return { ...given, config };
  }
  const interfaces = list(root.interfaces, 'vultr.interfaces');
  const config: unknown[] = [{ type: 'nameserver', address: VULTR_NAMESERVERS }];
  interfaces.forEach((iface, i) => {
    if (i > 0 && isObj(iface) && iface.unconfigured) return;
    config.push(nicConfig(iface, `vultr.interfaces[${i}]`, i === 0, macs));
  });
  return { version: 1, config };
}

/** The 'vultr' format the Vultr source's network config is in. */
export const vultrNetworkFormat: NetworkFormat = {
  name: 'vultr',
  toNetworkConfig: (config, ctx) => convertVultrNetwork(config, ctx.macs),
};
