// DigitalOcean droplet metadata (`interfaces` and `dns.nameservers` of metadata/v1.json) converted to network config
// v1, as cloud-init's convert_network_configuration does.
import { isObj, list, obj, str, strList, type Obj } from '../../net/check';
import { NetworkConfigError } from '../../net/net-error';
import type { NetworkFormat } from '../../net/network-format';

/** What the DigitalOcean source hands over: the metadata's `interfaces` and its nameservers. */
export interface DigitalOceanNetwork {
  interfaces: unknown;
  nameservers?: unknown;
}

/** cloud-init names the droplet's public NIC eth0 and its private one eth1, whatever the kernel called them. */
const NIC_NAMES: Record<string, string> = { public: 'eth0', private: 'eth1' };

/**
 * The address families in cloud-init's order; anchor addresses (the floating IP's route target) never get a gateway.
 */
const FAMILIES = ['ipv4', 'ipv6', 'anchor_ipv4', 'anchor_ipv6'] as const;

function subnet(raw: Obj, key: string, withGateway: boolean): Obj {
  const ip = str(raw.ip_address, `${key}.ip_address`);
  const out: Obj = { type: 'static', control: 'auto' };
  if (ip.includes(':')) {
    if (raw.cidr === undefined || raw.cidr === null)
      throw new NetworkConfigError(`${key}.cidr`, `the IPv6 address ${ip} has no prefix length`);
    out.address = `${ip}/${str(raw.cidr, `${key}.cidr`)}`;
  } else {
    out.address = ip;
    out.netmask = str(raw.netmask, `${key}.netmask`);
  }
  if (withGateway && raw.gateway !== undefined && raw.gateway !== null)
    out.gateway = str(raw.gateway, `${key}.gateway`);
  return out;
}

/**
 * INPUT.interfaces maps a kind ('public', 'private') to a list whose first NIC is configured; MACS maps this
 * machine's lower-case MACs to interface names. A NIC whose MAC is not on the machine is an error (cloud-init
 * raises too: the droplet would come up half-configured). The floating IP is not in `interfaces` and is left to
 * DigitalOcean's routing through the anchor address, as cloud-init leaves it.
 */
export function convertDigitalOceanNetwork(input: unknown, macs: Map<string, string>): Obj {
  const root = obj(input, 'digitalocean');
  const interfaces = obj(root.interfaces, 'digitalocean.interfaces');
  const config: Obj[] = [];
  for (const [kind, nics] of Object.entries(interfaces)) {
    const key = `digitalocean.interfaces.${kind}[0]`;
    const nic = obj(list(nics, `digitalocean.interfaces.${kind}`)[0], key);
    const mac = str(nic.mac, `${key}.mac`);
    const sysfsName = macs.get(mac.toLowerCase());
    if (!sysfsName)
      throw new NetworkConfigError(
        `${key}.mac`,
        `no network interface on this machine has MAC ${mac}; the ${kind} interface cannot be configured`,
      );
    const type = typeof nic.type === 'string' ? nic.type : 'unknown';
    const subnets: Obj[] = [];
    for (const family of FAMILIES) {
      const raw = nic[family];
      if (!isObj(raw) || Object.keys(raw).length === 0) continue;
      subnets.push(subnet(raw, `${key}.${family}`, type === 'public' && !family.startsWith('anchor')));
    }
    config.push({ type: 'physical', mac_address: mac, name: NIC_NAMES[type] ?? sysfsName, subnets });
  }
  const servers =
    root.nameservers === undefined || root.nameservers === null
      ? []
      : strList(root.nameservers, 'digitalocean.dns.nameservers');
  if (servers.length > 0) config.push({ type: 'nameserver', address: servers });
  return { version: 1, config };
}

/** The 'digitalocean' format the DigitalOcean source's network config is in. */
export const digitaloceanNetworkFormat: NetworkFormat = {
  name: 'digitalocean',
  toNetworkConfig: (config, ctx) => convertDigitalOceanNetwork(config, ctx.macs),
};
