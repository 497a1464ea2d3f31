// EC2 IMDS `network/interfaces/macs` converted to network config v2: DHCP on every NIC, secondary IPs as addresses.
import { isObj, obj, type Obj } from './check';
import { NetworkConfigError } from './net-error';

function ipList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string') return v.split('\n').map((s) => s.trim()).filter(Boolean);
  return [];
}

function secondary(meta: Obj, cidrKey: string, ips: string[], defaultPrefix: string): string[] {
  const cidr = meta[cidrKey];
  const prefix = typeof cidr === 'string' && cidr.split('/').length === 2 ? (cidr.split('/')[1] as string) : defaultPrefix;
  return ips.slice(1).map((ip) => `${ip}/${prefix}`);
}

/**
 * IMDS is the `network` tree of the metadata ({interfaces: {macs: {...}}}); MACS maps lower-case MACs to this
 * machine's interface names. Only NICs present on the machine are configured, as cloud-init does. With
 * FULL false only the primary NIC (PRIMARY, or device-number 0) gets DHCP.
 */
export function convertEc2Network(imds: unknown, macs: Map<string, string>, opts: { full?: boolean; primary?: string } = {}): Obj {
  const key = 'ec2.network';
  const tree = obj(imds, key);
  const byMac = obj(obj(tree.interfaces, `${key}.interfaces`).macs, `${key}.interfaces.macs`);
  const ethernets: Record<string, Obj> = {};
  if (opts.full === false) {
    const entry = [...macs.entries()].find(([, n]) => n === opts.primary) ?? [...macs.entries()][0];
    if (!entry) throw new NetworkConfigError(key, 'no network interface on this machine to configure');
    const [mac, name] = entry;
    const meta = isObj(byMac[mac]) ? byMac[mac] : {};
    ethernets[name] = { dhcp4: true, dhcp6: ipList(meta.ipv6s).length > 0, match: { macaddress: mac.toLowerCase() }, 'set-name': name };
    return { version: 2, ethernets };
  }
  let idx = 0;
  for (const [mac, name] of [...macs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const meta = byMac[mac];
    if (!isObj(meta)) continue;
    idx = Number.parseInt(String(meta['device-number'] ?? idx), 10) + 1;
    const override = { 'route-metric': idx * 100 };
    const dev: Obj = { dhcp4: true, 'dhcp4-overrides': override, dhcp6: false, match: { macaddress: mac.toLowerCase() }, 'set-name': name };
    const v4 = ipList(meta['local-ipv4s']);
    const v6 = ipList(meta.ipv6s);
    if (v6.length) {
      dev.dhcp6 = true;
      dev['dhcp6-overrides'] = override;
    }
    const addresses = [...(v4.length > 1 ? secondary(meta, 'subnet-ipv4-cidr-block', v4, '24') : []), ...(v6.length > 1 ? secondary(meta, 'subnet-ipv6-cidr-block', v6, '128') : [])].sort();
    if (addresses.length) dev.addresses = addresses;
    ethernets[name] = dev;
  }
  const names = Object.keys(ethernets);
  if (names.length === 1) {
    delete (ethernets[names[0] as string] as Obj)['dhcp4-overrides'];
    delete (ethernets[names[0] as string] as Obj)['dhcp6-overrides'];
  }
  return { version: 2, ethernets };
}
