// NetworkConfigPlugin: static IPv4/IPv6 addresses, gateways, routes, DNS and MTU per adapter (matched by MAC) from the metadata's network config.
import { parseNetworkInput, type InputKind } from '../net/parse-network-config';
import { toWindowsAdapterSettings, type WindowsAdapterSettings } from '../net/windows-adapter-settings';
import type { NetAdapter } from '../platform/windows/windows-system';
import { PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';

const TCPIP = 'SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters';
const TCPIP6 = 'SYSTEM\\CurrentControlSet\\Services\\Tcpip6\\Parameters';

function netmask(prefix: number): string {
  const bits = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((s) => (bits >>> s) & 0xff).join('.');
}

/** Applies one adapter's settings: live through IP Helper, persistent in its Tcpip interface key. */
function applyAdapter(ctx: PluginContext, want: WindowsAdapterSettings, have: NetAdapter): void {
  const win = ctx.windows;
  const ref = { luid: have.luid, ifIndex: have.ifIndex };
  const v4 = want.addresses.filter((a) => a.family === 'ipv4');
  const v6 = want.addresses.filter((a) => a.family === 'ipv6');
  const iface = `${TCPIP}\\Interfaces\\${have.guid}`;
  if (v4.length > 0 && !want.dhcp4) {
    // The persistent static configuration Windows applies at every start of the adapter; DHCP off.
    win.regSet('HKLM', iface, 'EnableDHCP', { type: 'REG_DWORD', data: 0 });
    win.regSet('HKLM', iface, 'IPAddress', { type: 'REG_MULTI_SZ', data: v4.map((a) => a.address) });
    win.regSet('HKLM', iface, 'SubnetMask', { type: 'REG_MULTI_SZ', data: v4.map((a) => netmask(a.prefixLength)) });
    const gw = want.gateways.find((g) => g.family === 'ipv4');
    if (gw) {
      win.regSet('HKLM', iface, 'DefaultGateway', { type: 'REG_MULTI_SZ', data: [gw.address] });
      win.regSet('HKLM', iface, 'DefaultGatewayMetric', { type: 'REG_MULTI_SZ', data: [String(gw.metric ?? 0)] });
    }
  }
  for (const a of want.addresses) win.addIpAddress(ref, a.address, a.prefixLength, a.family);
  for (const g of want.gateways) {
    win.addRoute(ref, { destination: g.family === 'ipv4' ? '0.0.0.0' : '::', prefixLength: 0, nextHop: g.address, family: g.family, ...(g.metric !== undefined ? { metric: g.metric } : {}) });
  }
  for (const r of want.routes) win.addRoute(ref, r);
  const v4dns = want.dnsServers.filter((d) => !d.includes(':'));
  const v6dns = want.dnsServers.filter((d) => d.includes(':'));
  if (v4dns.length > 0) win.regSet('HKLM', iface, 'NameServer', { type: 'REG_SZ', data: v4dns.join(',') });
  if (v6dns.length > 0) win.regSet('HKLM', `${TCPIP6}\\Interfaces\\${have.guid}`, 'NameServer', { type: 'REG_SZ', data: v6dns.join(',') });
  if (want.mtu !== undefined && want.mtu !== have.mtu) {
    win.setInterfaceMtu(ref, 'ipv4', want.mtu);
    if (v6.length > 0 || want.dhcp6) win.setInterfaceMtu(ref, 'ipv6', want.mtu);
  }
}

export const networkConfigPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.common.networkconfig.NetworkConfigPlugin',
  name: 'NetworkConfigPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const nc = ctx.instance?.networkConfig;
    if (!nc) {
      ctx.log.info('The metadata has no network configuration; adapters keep DHCP');
      return { status: 'done', reboot: false };
    }
    const adapters = ctx.windows.netAdapters();
    for (const a of adapters) {
      ctx.log.debug(`Adapter ${a.ifIndex} '${a.friendlyName}' ${a.mac || '(no MAC)'} ${a.guid} mtu ${a.mtu} ${a.dhcpv4 ? 'dhcp' : 'static'} ${a.unicast.map((u) => `${u.address}/${u.prefixLength}`).join(' ')}`);
    }
    const macs = new Map(adapters.filter((a) => a.mac).map((a) => [a.mac, a.friendlyName]));
    const state = parseNetworkInput(nc.format as InputKind, nc.config, { macs, key: 'network config' });
    const plan = toWindowsAdapterSettings(state);
    for (const s of plan.skipped) ctx.log.warn(`Network config: ${s.name} skipped: ${s.reason}`);
    const missing: string[] = [];
    for (const want of plan.adapters) {
      const have = adapters.find((a) => a.mac === want.mac);
      if (!have) {
        missing.push(want.mac);
        continue;
      }
      if (want.addresses.length === 0 && want.mtu === undefined && want.dnsServers.length === 0) {
        ctx.log.info(`Adapter ${have.friendlyName} (${want.mac}) stays on DHCP`);
        continue;
      }
      ctx.log.info(`Configuring adapter ${have.friendlyName} (${want.mac})`);
      applyAdapter(ctx, want, have);
    }
    const search = [...new Set(plan.adapters.flatMap((a) => a.dnsSearch))];
    if (search.length > 0) ctx.windows.regSet('HKLM', TCPIP, 'SearchList', { type: 'REG_SZ', data: search.join(',') });
    if (missing.length > 0) {
      const known = adapters.map((a) => `${a.friendlyName} ${a.mac || '(no MAC)'}`).join(', ') || 'none';
      throw new PluginError('NetworkConfigPlugin', `no network adapter with MAC ${missing.join(', ')} (adapters here: ${known})`);
    }
    return { status: 'done', reboot: false };
  },
};
