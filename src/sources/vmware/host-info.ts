// VMware's host info (cloud-init's DataSourceVMware.get_host_info): the host name, the default IPv4/IPv6 addresses and
// every NIC's addresses, read with iproute2's JSON output in the target.
import { prefixToIpv4Mask } from '../../net/ip';
import type { Platform } from '../../platform/platform';
import type { Log } from '../../util/log';

/** One address as netifaces.ifaddresses lists it (cloud-init keeps that shape in the metadata). */
type NetifacesAddress = Record<string, string>;

/** What `ip -j addr show` says of one interface (the fields used). */
interface IpLink {
  ifname: string;
  address?: string;
  link_type?: string;
  addr_info?: Array<{ family: string; local?: string; prefixlen?: number; broadcast?: string; scope?: string }>;
}

export interface HostInfo {
  network: {
    interfaces: {
      'by-mac': Record<string, Record<string, NetifacesAddress[]>>;
      'by-ipv4': Record<string, NetifacesAddress>;
      'by-ipv6': Record<string, NetifacesAddress>;
    };
  };
  hostname?: string;
  'local-hostname'?: string;
  local_hostname?: string;
  'local-ipv4'?: string;
  'local-ipv6'?: string;
}

/** An IPv6 netmask as netifaces writes it: the mask compressed as Python's ipaddress does, then '/prefix'. */
export function ipv6Netmask(prefix: number): string {
  const groups = Array.from({ length: 8 }, (_, i) => {
    const bits = Math.max(0, Math.min(16, prefix - i * 16));
    return bits === 0 ? 0 : (0xffff << (16 - bits)) & 0xffff;
  }).map((g) => g.toString(16));
  // A mask's zero groups are all at the end: two or more of them become '::'.
  const firstZero = groups.indexOf('0');
  const zeros = firstZero < 0 ? 0 : 8 - firstZero;
  const text = zeros >= 2 ? `${groups.slice(0, firstZero).join(':')}::` : groups.join(':');
  return `${text}/${prefix}`;
}

/** cloud-init's is_valid_ip_addr: not loopback, link-local or unspecified. */
function isUsableAddress(addr: string, family: 'inet' | 'inet6'): boolean {
  if (family === 'inet') return !/^(127\.|169\.254\.|0\.0\.0\.0$)/.test(addr);
  const a = addr.toLowerCase();
  return !(a === '::1' || a === '::' || /^fe[89ab][0-9a-f]:/.test(a));
}

/** netifaces' AF_INET entry: the broadcast is the local address itself when the kernel holds none (getifaddrs). */
function inetEntry(a: NonNullable<IpLink['addr_info']>[number]): NetifacesAddress {
  return {
    addr: a.local as string,
    netmask: prefixToIpv4Mask(a.prefixlen ?? 32),
    broadcast: a.broadcast ?? (a.local as string),
  };
}

function inet6Entry(a: NonNullable<IpLink['addr_info']>[number]): NetifacesAddress {
  return { addr: a.local as string, netmask: ipv6Netmask(a.prefixlen ?? 128) };
}

/**
 * The default address of one family, as cloud-init's get_default_ip_addrs: the only address of that family on
 * the default route's NIC (none when it has several: cloud-init warns and gives up; a link-local IPv6 counts).
 */
function onlyAddress(link: IpLink | undefined, family: 'inet' | 'inet6', log: Log): string | undefined {
  const list = (link?.addr_info ?? []).filter((a) => a.family === family && a.local);
  if (list.length > 1) {
    log.warn(
      `device ${link?.ifname ?? '?'} has more than one ${family === 'inet' ? 'ipv4' : 'ipv6'} address: ${list.map((a) => a.local).join(', ')}`,
    );
    return undefined;
  }
  return list[0]?.local;
}

/** The default route's device for one family (`ip -j [-6] route show default`), or undefined. */
async function defaultRouteDevice(platform: Platform, family: '-4' | '-6'): Promise<string | undefined> {
  const r = await platform.run(['ip', '-j', family, 'route', 'show', 'default'], {
    allowFailure: true,
    timeoutMs: 5000,
  });
  if (r.code !== 0) return undefined;
  try {
    const routes = JSON.parse(r.stdout || '[]') as Array<{ dev?: string }>;
    return routes.find((x) => x.dev)?.dev;
  } catch {
    // ip's answer that is not JSON names no device.
    return undefined;
  }
}

/** The canonical name /etc/hosts gives NAME (the first name of the line listing it), else NAME: getfqdn without DNS. */
async function fqdnOf(platform: Platform, name: string): Promise<string> {
  const hosts = (await platform.readTextIfExists('/etc/hosts').catch(() => undefined)) ?? '';
  for (const line of hosts.split('\n')) {
    const names = line.replace(/#.*/, '').trim().split(/\s+/).slice(1);
    if (names.includes(name)) return names[0] as string;
  }
  return name;
}

/** The interfaces of the target's network namespace, as `ip -j addr show` lists them (ifindex order). */
export async function readLinks(platform: Platform): Promise<IpLink[]> {
  const r = await platform.run(['ip', '-j', 'addr', 'show'], { timeoutMs: 5000 });
  return JSON.parse(r.stdout || '[]') as IpLink[];
}

/**
 * cloud-init's get_host_info: HOSTNAME (its FQDN from /etc/hosts when listed there), local-ipv4/local-ipv6 (the
 * default routes' addresses, each falling back to the other family's NIC), and every NIC with a MAC under
 * by-mac, every usable address under by-ipv4/by-ipv6, in netifaces' shapes. LINKS are `ip -j addr show`'s.
 */
export function hostInfoFrom(
  links: IpLink[],
  defaults: { v4?: string; v6?: string },
  hostname: string | undefined,
  log: Log,
): HostInfo {
  const info: HostInfo = { network: { interfaces: { 'by-mac': {}, 'by-ipv4': {}, 'by-ipv6': {} } } };
  if (hostname) {
    info.hostname = hostname;
    info['local-hostname'] = hostname;
    info.local_hostname = hostname;
  }
  const byName = new Map(links.map((l) => [l.ifname, l]));
  const dev4 = defaults.v4 ? byName.get(defaults.v4) : undefined;
  const dev6 = defaults.v6 ? byName.get(defaults.v6) : undefined;
  let v4 = dev4 ? onlyAddress(dev4, 'inet', log) : undefined;
  let v6 = dev6 ? onlyAddress(dev6, 'inet6', log) : undefined;
  if (v4 && !v6) v6 = onlyAddress(dev4, 'inet6', log);
  if (!v4 && v6) v4 = onlyAddress(dev6, 'inet', log);
  if (v4) info['local-ipv4'] = v4;
  if (v6) info['local-ipv6'] = v6;
  const { 'by-mac': byMac, 'by-ipv4': byIpv4, 'by-ipv6': byIpv6 } = info.network.interfaces;
  for (const link of links) {
    const mac = link.address && link.link_type !== 'none' ? link.address : undefined;
    if (mac === '00:00:00:00:00:00') continue;
    const inet = (link.addr_info ?? []).filter((a) => a.family === 'inet' && a.local);
    const inet6 = (link.addr_info ?? []).filter((a) => a.family === 'inet6' && a.local);
    if (mac && (inet.length > 0 || inet6.length > 0)) {
      const entry: Record<string, NetifacesAddress[]> = {};
      if (inet.length > 0) entry.ipv4 = inet.filter((a) => isUsableAddress(a.local as string, 'inet')).map(inetEntry);
      if (inet6.length > 0)
        entry.ipv6 = inet6.filter((a) => isUsableAddress(a.local as string, 'inet6')).map(inet6Entry);
      byMac[mac] = entry;
    }
    for (const a of inet.filter((x) => isUsableAddress(x.local as string, 'inet'))) {
      const { addr, ...rest } = inetEntry(a);
      byIpv4[addr as string] = { ...rest, ...(mac ? { mac } : {}) };
    }
    for (const a of inet6.filter((x) => isUsableAddress(x.local as string, 'inet6'))) {
      const { addr, ...rest } = inet6Entry(a);
      byIpv6[addr as string] = { ...rest, ...(mac ? { mac } : {}) };
    }
  }
  return info;
}

/** Reads the host info of the target (see hostInfoFrom). */
export async function readHostInfo(platform: Platform, log: Log): Promise<HostInfo> {
  const links = await readLinks(platform);
  const defaults = { v4: await defaultRouteDevice(platform, '-4'), v6: await defaultRouteDevice(platform, '-6') };
  const name = (await platform.run(['hostname'], { allowFailure: true, timeoutMs: 5000 })).stdout.trim();
  return hostInfoFrom(links, defaults, name ? await fqdnOf(platform, name) : undefined, log);
}
