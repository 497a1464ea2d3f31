// An adapter's IPv4 and DNS settings where Windows keeps them across reboots: the Tcpip/Tcpip6 registry keys.
import { prefixToIpv4Mask as netmask } from '../net/ip';
import type { WindowsAdapterSettings, WindowsRoute } from '../net/windows-adapter-settings';
import type { WindowsSystem } from '../platform/windows/windows-system';

export const TCPIP = 'SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters';
export const TCPIP6 = 'SYSTEM\\CurrentControlSet\\Services\\Tcpip6\\Parameters';
/** Where `route -p` keeps IPv4 routes; Windows adds them again at every start of the stack. */
export const PERSISTENT_ROUTES = `${TCPIP}\\PersistentRoutes`;

/**
 * A PersistentRoutes value name as `route -p` writes it: 'destination,mask,gateway,metric' (metric 1 when none is
 * given).
 */
export function persistentRouteName(route: WindowsRoute): string {
  return [route.destination, netmask(route.prefixLength), route.nextHop, String(route.metric ?? 1)].join(',');
}

/**
 * Writes what Windows applies at every start of the adapter (GUID): for static IPv4, DHCP off with the
 * addresses, masks and default gateway (as Win32_NetworkAdapterConfiguration's EnableStatic and SetGateways
 * store them); IPv4 name servers (SetDNSServerSearchOrder's NameServer) and IPv6 ones (Tcpip6's); extra IPv4
 * routes as `route -p` stores them.
 */
export function persistTcpipSettings(win: WindowsSystem, guid: string, want: WindowsAdapterSettings): void {
  const iface = `${TCPIP}\\Interfaces\\${guid}`;
  const v4 = want.addresses.filter((a) => a.family === 'ipv4');
  if (v4.length > 0 && !want.dhcp4) {
    win.regSet('HKLM', iface, 'EnableDHCP', { type: 'REG_DWORD', data: 0 });
    win.regSet('HKLM', iface, 'IPAddress', { type: 'REG_MULTI_SZ', data: v4.map((a) => a.address) });
    win.regSet('HKLM', iface, 'SubnetMask', { type: 'REG_MULTI_SZ', data: v4.map((a) => netmask(a.prefixLength)) });
    const gw = want.gateways.find((g) => g.family === 'ipv4');
    if (gw) {
      win.regSet('HKLM', iface, 'DefaultGateway', { type: 'REG_MULTI_SZ', data: [gw.address] });
      win.regSet('HKLM', iface, 'DefaultGatewayMetric', { type: 'REG_MULTI_SZ', data: [String(gw.metric ?? 0)] });
    }
  }
  for (const r of want.routes.filter((x) => x.family === 'ipv4'))
    win.regSet('HKLM', PERSISTENT_ROUTES, persistentRouteName(r), { type: 'REG_SZ', data: '' });
  const v4dns = want.dnsServers.filter((d) => !d.includes(':'));
  const v6dns = want.dnsServers.filter((d) => d.includes(':'));
  if (v4dns.length > 0) win.regSet('HKLM', iface, 'NameServer', { type: 'REG_SZ', data: v4dns.join(',') });
  if (v6dns.length > 0)
    win.regSet('HKLM', `${TCPIP6}\\Interfaces\\${guid}`, 'NameServer', { type: 'REG_SZ', data: v6dns.join(',') });
}
