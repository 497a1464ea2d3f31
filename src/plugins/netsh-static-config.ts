// netsh for what the Tcpip registry keys cannot say: IPv4 DHCP turned off now, IPv6 addresses and routes kept across
// reboots.
import { expandIpv6, prefixToIpv4Mask } from '../net/ip';
import type { WindowsAddress, WindowsRoute } from '../net/windows-adapter-settings';
import type { Platform } from '../platform/platform';

/**
 * Makes ADDRESS the adapter's static IPv4 address with GATEWAY, DHCP off, now and for the next boots, as
 * cloudbase-init's EnableStatic / MSFT_NetIPInterface Dhcp=0 do (netsh's default store is both).
 */
export async function setStaticIpv4(
  platform: Platform,
  ifIndex: number,
  address: WindowsAddress,
  gateway?: { address: string; metric?: number },
): Promise<void> {
  await platform.run([
    'netsh',
    'interface',
    'ipv4',
    'set',
    'address',
    `name=${ifIndex}`,
    'source=static',
    `address=${address.address}`,
    `mask=${prefixToIpv4Mask(address.prefixLength)}`,
    ...(gateway
      ? [`gateway=${gateway.address}`, ...(gateway.metric !== undefined ? [`gwmetric=${gateway.metric}`] : [])]
      : []),
  ]);
}

/**
 * IPv6 addresses and prefixes of netsh's output, expanded ('2001:0db8:…/64'): IP text reads the same in every language.
 */
function ipv6Tokens(line: string): string[] {
  return [...line.matchAll(/[0-9a-f]*:[0-9a-f:]*:[0-9a-f]*(?:\/\d+)?/gi)].map((m) => {
    const [addr = '', len] = m[0].split('/');
    return len === undefined ? expandIpv6(addr) : `${expandIpv6(addr)}/${len}`;
  });
}

async function persistentListing(platform: Platform, what: string[]): Promise<string[]> {
  const r = await platform.run(['netsh', 'interface', 'ipv6', 'show', ...what, 'store=persistent'], {
    allowFailure: true,
  });
  return r.code === 0 ? r.stdout.split(/\r?\n/) : [];
}

/**
 * Adds ADDRESSES and ROUTES (IPv6 default gateway included, as ::/0) to the adapter in netsh's persistent store,
 * where Windows keeps IPv6 configuration across reboots (MSFT_NetIPAddress/MSFT_NetRoute's PersistentStore);
 * those already there are left alone, so a second run adds nothing.
 */
export async function persistIpv6(
  platform: Platform,
  ifIndex: number,
  addresses: WindowsAddress[],
  routes: WindowsRoute[],
): Promise<void> {
  if (addresses.length > 0) {
    const have = new Set(
      (await persistentListing(platform, ['addresses', `interface=${ifIndex}`])).flatMap(ipv6Tokens),
    );
    for (const a of addresses) {
      if (have.has(expandIpv6(a.address))) continue;
      await platform.run([
        'netsh',
        'interface',
        'ipv6',
        'add',
        'address',
        `interface=${ifIndex}`,
        `address=${a.address}/${a.prefixLength}`,
        'store=persistent',
      ]);
    }
  }
  if (routes.length > 0) {
    const have = (await persistentListing(platform, ['route'])).map(ipv6Tokens);
    for (const r of routes) {
      const prefix = `${expandIpv6(r.destination)}/${r.prefixLength}`;
      if (have.some((line) => line.includes(prefix) && line.includes(expandIpv6(r.nextHop)))) continue;
      await platform.run([
        'netsh',
        'interface',
        'ipv6',
        'add',
        'route',
        `prefix=${r.destination}/${r.prefixLength}`,
        `interface=${ifIndex}`,
        `nexthop=${r.nextHop}`,
        ...(r.metric !== undefined ? [`metric=${r.metric}`] : []),
        'store=persistent',
      ]);
    }
  }
}
