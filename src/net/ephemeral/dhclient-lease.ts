// Reads the newest lease of an ISC dhclient lease file, so that kiln applies it itself (dhclient ran with -sf
// /bin/true).
import { parseHexRfc3442Routes, parseRfc3442Routes, type StaticRoute } from './dhcp-static-routes';
import { EphemeralNetworkError } from './ephemeral-network-error';
import { maskToPrefix } from '../ip';

/**
 * What the temporary network needs from a lease: the address, its prefix length, the routers and option 121's routes.
 */
export interface DhclientLease {
  interface?: string;
  address: string;
  prefix: number;
  routers: string[];
  /** DHCP option 121 (RFC 3442); when any, the routers are ignored. */
  staticRoutes: StaticRoute[];
  /** Why option 121 was cut short, if it was (the routes before the fault are kept, as cloud-init does). */
  routeProblems: string[];
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The last `lease { … }` block of TEXT (dhclient appends renewals), as cloud-init's parse_dhcp_lease_file takes it. */
export function parseDhclientLease(text: string, file: string): DhclientLease {
  const blocks = [...text.matchAll(/lease\s*\{([^}]*)\}/g)].map((b) => b[1] as string);
  const last = blocks.at(-1);
  if (last === undefined) throw new EphemeralNetworkError('ephemeral-dhcp', `${file} holds no lease`);
  const opt = (key: string) => new RegExp(`^\\s*${key}\\s+"?([^";]+)"?;`, 'm').exec(last)?.[1]?.trim();
  const address = opt('fixed-address');
  if (!address || !IPV4.test(address))
    throw new EphemeralNetworkError('ephemeral-dhcp', `${file}: the lease has no IPv4 fixed-address`);
  const mask = opt('option subnet-mask');
  const prefix = mask === undefined ? 32 : maskToPrefix(mask, 'ipv4');
  if (prefix === undefined)
    throw new EphemeralNetworkError('ephemeral-dhcp', `${file}: subnet-mask ${mask} is not a valid netmask`);
  const routers = (opt('option routers') ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter((r) => IPV4.test(r));
  const iface = opt('interface');
  // Named as Debian's dhclient.conf declares option 121 (or dhcpcd's name, as cloud-init reads both); a dhclient
  // without that declaration records it as unknown-121 in hex.
  const routeProblems: string[] = [];
  const named = opt('option rfc3442-classless-static-routes') ?? opt('option classless-static-routes');
  const hex = opt('option unknown-121');
  const staticRoutes =
    named !== undefined
      ? parseRfc3442Routes(named, routeProblems)
      : hex !== undefined
        ? parseHexRfc3442Routes(hex, routeProblems)
        : [];
  return { address, prefix, routers, staticRoutes, routeProblems, ...(iface ? { interface: iface } : {}) };
}
