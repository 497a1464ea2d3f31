// The network devices as cloud-init's netinfo reads them from `ip --json addr`: per device its MAC (Ethernet only),
// whether it is up (UP and LOWER_UP), and its IPv4 and IPv6 addresses.
import { describeError, KilnError } from '../../util/errors';

export interface Ipv4Info {
  ip: string;
  mask: string;
  bcast: string;
  scope: string;
}

export interface Ipv6Info {
  ip: string;
  scope6: string;
}

export interface DeviceInfo {
  hwaddr: string;
  up: boolean;
  ipv4: Ipv4Info[];
  ipv6: Ipv6Info[];
}

export class NetInfoError extends KilnError {
  override readonly name = 'NetInfoError';
}

interface IpAddrInfo {
  family?: string;
  local?: string;
  address?: string;
  prefixlen?: number;
  broadcast?: string;
  scope?: string;
}

interface IpLink {
  ifname?: string;
  flags?: string[];
  link_type?: string;
  address?: string;
  addr_info?: IpAddrInfo[];
}

function ipv4Mask(prefix: number): string {
  const bits = prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffff : (0xffffffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((s) => (bits >>> s) & 255).join('.');
}

/** Parses `ip --json addr` output (cloud-init's _netdev_info_iproute_json); keyed by device name. */
export function parseIpJsonAddr(text: string): Map<string, DeviceInfo> {
  let links: unknown;
  try {
    links = JSON.parse(text);
  } catch (err) {
    throw new NetInfoError(`'ip --json addr' printed something that is not JSON: ${describeError(err)}`);
  }
  if (!Array.isArray(links)) throw new NetInfoError(`'ip --json addr' printed JSON that is not a list of devices`);
  const devs = new Map<string, DeviceInfo>();
  for (const link of links as IpLink[]) {
    const flags = link.flags ?? [];
    const info: DeviceInfo = {
      hwaddr: link.link_type === 'ether' ? (link.address ?? '') : '',
      up: flags.includes('UP') && flags.includes('LOWER_UP'),
      ipv4: [],
      ipv6: [],
    };
    for (const a of link.addr_info ?? []) {
      if (a.family === 'inet') {
        info.ipv4.push({
          ip: a.local ?? '',
          mask: a.prefixlen !== undefined ? ipv4Mask(a.prefixlen) : '',
          bcast: a.broadcast ?? '',
          scope: a.scope ?? '',
        });
      } else if (a.family === 'inet6') {
        // With a peer address the prefix belongs to the peer, so the local address is shown bare (man 8 ip-address).
        let ip = a.local ?? '';
        if (ip && !a.address) ip = `${ip}/${a.prefixlen ?? 64}`;
        info.ipv6.push({ ip, scope6: a.scope ?? '' });
      }
    }
    devs.set(String(link.ifname), info);
  }
  return devs;
}
