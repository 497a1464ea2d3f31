// The network config cloud-init's Scaleway source writes: DHCPv4 on the fallback NIC plus the metadata's IPv6 (older
// instances), or the `public_ips` list as v2 (newer ones, without a `private_ip`).
import type { InstanceData } from '../datasource';

type Md = Record<string, unknown>;

/**
 * The metadata route cloud-init forces on the DHCP address (Scaleway's service is not behind the default gateway
 * there).
 */
const METADATA_ROUTE = { to: '169.254.42.42/32', via: '62.210.0.1' };

function str(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

/**
 * MD is the instance metadata, NIC the fallback interface. Instances with a `private_ip` (or none given) get 22.4's
 * v1 config; `private_ip: null` with `public_ips` is the newer scheme: DHCP for the address the temporary lease
 * had (kiln takes the public IPv4 Scaleway provisions by DHCP, else the first IPv4, when DHCPv4 was used) and
 * static addresses for the rest, IPv6 with a default route.
 */
export function scalewayNetworkConfig(
  md: Md,
  nic: string,
  dhcpv4: boolean,
): NonNullable<InstanceData['networkConfig']>['config'] {
  if (md.private_ip === null && Array.isArray(md.public_ips)) {
    const ips = md.public_ips.filter((ip): ip is Md => Boolean(ip) && typeof ip === 'object');
    const v4 = ips.filter((ip) => ip.family === 'inet');
    const leased = dhcpv4 ? (v4.find((ip) => ip.provisioning_mode === 'dhcp') ?? v4[0]) : undefined;
    const cfg: Md = {};
    const addresses: string[] = [];
    const routes: Md[] = [];
    for (const ip of ips) {
      if (ip === leased) {
        cfg.dhcp4 = true;
        routes.unshift(METADATA_ROUTE);
        continue;
      }
      addresses.push(`${str(ip.address)}/${str(ip.netmask)}`);
      if (ip.family === 'inet6') routes.push({ via: str(ip.gateway), to: '::/0' });
    }
    if (addresses.length > 0) cfg.addresses = addresses;
    if (routes.length > 0) cfg.routes = routes;
    return { version: 2, ethernets: { [nic]: cfg } };
  }
  const subnets: Md[] = [{ type: 'dhcp4' }];
  const v6 = md.ipv6;
  if (v6 && typeof v6 === 'object') {
    const ip = v6 as Md;
    subnets.push({
      type: 'static',
      address: str(ip.address),
      netmask: str(ip.netmask),
      routes: [{ network: '::', prefix: '0', gateway: str(ip.gateway) }],
    });
  }
  return { version: 1, config: [{ type: 'physical', name: nic, subnets }] };
}
