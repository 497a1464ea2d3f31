// The network config cloud-init's OpenNebulaNetwork makes of the ETHx_* context variables (a v2 config naming every
// physical NIC).
import { naturalCompare } from '../../net/fallback';
import { maskToPrefix } from '../../net/ip';
import { readSysClassNet } from '../../net/sys-class-net';
import type { Platform } from '../../platform/platform';
import { SourceError } from '../source-error';

/** True when the context carries an ETHx_IP… variable, the condition for cloud-init to make a network config at all. */
export function contextHasAddresses(context: Record<string, string>): boolean {
  return Object.keys(context).some((k) => /^ETH\d+_IP/.test(k));
}

/**
 * MAC → name of the physical NICs (cloud-init's get_physical_nics_by_mac: a MAC, a `device` link, not lo, a
 * bond or a bridge).
 */
export async function physicalNicsByMac(platform: Platform): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const nic of await readSysClassNet(platform)) {
    if (!nic.mac || nic.name === 'lo' || nic.isBond || nic.isBridge || out.has(nic.mac)) continue;
    if (!(await platform.exists(`/sys/class/net/${nic.name}/device`))) continue;
    out.set(nic.mac, nic.name);
  }
  return out;
}

/** The last four octets of a MAC as an IPv4 address: OpenNebula's address when ETHx_IP is not given. */
function macToIp(mac: string): string {
  return mac
    .split(':')
    .slice(2)
    .map((h) => String(parseInt(h, 16)))
    .join('.');
}

/** cloud-init's OpenNebulaNetwork.gen_conf: one v2 ethernet per physical NIC, its fields from <ETHx>_<FIELD>. */
export function openNebulaNetworkConfig(
  context: Record<string, string>,
  nicsByMac: Map<string, string>,
): Record<string, unknown> {
  // ETHx_MAC names the context's device for a MAC (OpenNebula 4.14+).
  const contextDev = new Map<string, string>();
  for (const [k, v] of Object.entries(context)) {
    const m = /^(.+)_MAC$/.exec(k);
    if (m) contextDev.set(v.toLowerCase(), m[1] as string);
  }
  // An empty value counts as unset, as get_field has it.
  const field = (dev: string, name: string, fallback?: string): string | undefined => {
    const v = context[`${dev}_${name}`.toUpperCase()];
    return v === undefined || v === '' ? fallback : v;
  };
  const ethernets: Record<string, unknown> = {};
  const nics = [...nicsByMac.entries()].sort((a, b) => naturalCompare(a[1], b[1]));
  for (const [rawMac, dev] of nics) {
    const mac = rawMac.toLowerCase();
    const cdev = contextDev.get(mac) ?? dev;
    const conf: Record<string, unknown> = { match: { macaddress: mac } };
    const mask = field(cdev, 'mask', '255.255.255.0') as string;
    const prefix = maskToPrefix(mask);
    if (prefix === undefined || prefix > 32)
      throw new SourceError('OpenNebula', `context.sh: ${cdev.toUpperCase()}_MASK '${mask}' is not an IPv4 netmask`);
    const addresses = [`${field(cdev, 'ip', macToIp(mac))}/${prefix}`];
    const ip6 = [field(cdev, 'ip6'), field(cdev, 'ip6_ula')].filter((a): a is string => Boolean(a));
    const prefix6 = field(cdev, 'ip6_prefix_length', '64');
    for (const a of ip6) addresses.push(`${a}/${prefix6}`);
    conf.addresses = addresses;
    const gw = field(cdev, 'gateway');
    if (gw) conf.gateway4 = gw;
    const gw6 = field(cdev, 'ip6_gateway', field(cdev, 'gateway6'));
    if (gw6) conf.gateway6 = gw6;
    const dns = [...(field(cdev, 'dns', '') as string).split(/\s+/), ...(context.DNS ?? '').split(/\s+/)].filter(
      Boolean,
    );
    const search = (field(cdev, 'search_domain', '') as string).split(/\s+/).filter(Boolean);
    const nameservers: Record<string, unknown> = {};
    if (dns.length > 0) nameservers.addresses = dns;
    if (search.length > 0) nameservers.search = search;
    if (Object.keys(nameservers).length > 0) conf.nameservers = nameservers;
    // cloud-init keeps the MTU as the string it read.
    const mtu = field(cdev, 'mtu');
    if (mtu) conf.mtu = mtu;
    ethernets[dev] = conf;
  }
  return { version: 2, ethernets };
}
