// Azure IMDS `network` (interfaces with MAC, IPv4/IPv6 addresses and subnets) turned into network config v2, as
// cloud-init renders it.
import { SourceError } from '../source-error';

/**
 * '000D3A047598' → '00:0d:3a:04:75:98'; a MAC that already has separators is only lower-cased (cloud-init's
 * normalize_mac_address).
 */
export function normalizeAzureMac(mac: string): string {
  const m = mac.length === 12 ? mac.replace(/(..)(?!$)/g, '$1:') : mac;
  return m.toLowerCase();
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The v2 config for IMDS's `network` object: every interface with an address gets DHCP (v4; v6 when it has
 * IPv6 addresses) with a route metric of 100 × its position, its first address of each family comes from DHCP
 * and the others are static (`/24` and `/128` when the subnet gives no prefix), and secondary NICs ignore the DNS
 * their DHCP server offers (25.1); it is matched by MAC and named eth0, eth1 … in IMDS order. DRIVERS (ethN → driver)
 * adds the hv_netvsc driver match cloud-init adds.
 */
export function azureImdsNetworkConfig(
  network: unknown,
  drivers: Record<string, string> = {},
): { version: 2; ethernets: Record<string, Record<string, unknown>> } {
  if (!isObj(network) || !Array.isArray(network.interface))
    throw new SourceError('Azure', 'IMDS network has no interface list');
  const ethernets: Record<string, Record<string, unknown>> = {};
  network.interface.forEach((intf: unknown, idx: number) => {
    if (!isObj(intf)) throw new SourceError('Azure', `IMDS network.interface[${idx}] is not an object`);
    const name = `eth${idx}`;
    const override: Record<string, unknown> = { 'route-metric': (idx + 1) * 100 };
    // DNS through a secondary NIC is not supported on Azure: cloud-init 25.1 turns it off there.
    if (idx > 0) override['use-dns'] = false;
    const dev: Record<string, unknown> = { dhcp4: true, 'dhcp4-overrides': override, dhcp6: false };
    let hasAddress = false;
    for (const family of ['ipv4', 'ipv6'] as const) {
      const fam = isObj(intf[family]) ? (intf[family] as Record<string, unknown>) : {};
      const addresses = Array.isArray(fam.ipAddress) ? fam.ipAddress : [];
      if (addresses.length === 0) continue;
      hasAddress = true;
      if (family === 'ipv6') {
        dev.dhcp6 = true;
        dev['dhcp6-overrides'] = override;
      }
      const subnet =
        Array.isArray(fam.subnet) && isObj(fam.subnet[0]) ? (fam.subnet[0] as Record<string, unknown>) : undefined;
      for (const addr of addresses.slice(1)) {
        if (!subnet)
          throw new SourceError(
            'Azure',
            `IMDS network.interface[${idx}].${family} has secondary addresses but no subnet`,
          );
        const prefix = subnet.prefix ?? (family === 'ipv4' ? '24' : '128');
        const ip = isObj(addr) ? addr.privateIpAddress : undefined;
        if (typeof ip !== 'string' || !ip)
          throw new SourceError(
            'Azure',
            `IMDS network.interface[${idx}].${family}.ipAddress has an entry without privateIpAddress`,
          );
        ((dev.addresses ??= []) as string[]).push(`${ip}/${String(prefix)}`);
      }
    }
    if (!hasAddress) return;
    if (typeof intf.macAddress !== 'string' || !intf.macAddress)
      throw new SourceError('Azure', `IMDS network.interface[${idx}] has no macAddress`);
    const match: Record<string, string> = { macaddress: normalizeAzureMac(intf.macAddress) };
    if (drivers[name] === 'hv_netvsc') match.driver = 'hv_netvsc';
    dev.match = match;
    dev['set-name'] = name;
    ethernets[name] = dev;
  });
  return { version: 2, ethernets };
}
