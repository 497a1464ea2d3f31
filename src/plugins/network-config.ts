// NetworkConfigPlugin: static IPv4/IPv6 addresses, gateways, routes, DNS and MTU per adapter (matched by MAC) from the
// metadata's network config.
import { parseNetworkInput, type InputKind } from '../net/parse-network-config';
import { networkFormatByName } from '../sources/registry';
import {
  toWindowsAdapterSettings,
  type WindowsAdapterSettings,
  type WindowsRoute,
} from '../net/windows-adapter-settings';
import type { NetAdapter } from '../platform/windows/windows-system';
import { persistIpv6, setStaticIpv4 } from './netsh-static-config';
import { persistTcpipSettings, TCPIP } from './tcpip-persistent-config';
import { PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';

/**
 * Applies one adapter's settings, first where they survive a reboot, then live: static IPv4 with DHCP off through
 * netsh (now and persistent), the IPv4/DNS state in the Tcpip keys and extra IPv4 routes in PersistentRoutes,
 * IPv6 addresses and routes in netsh's persistent store; then every address, gateway and route now through IP Helper.
 */
async function applyAdapter(ctx: PluginContext, want: WindowsAdapterSettings, have: NetAdapter): Promise<void> {
  const win = ctx.windows;
  const ref = { luid: have.luid, ifIndex: have.ifIndex };
  const v4 = want.addresses.filter((a) => a.family === 'ipv4');
  const v6 = want.addresses.filter((a) => a.family === 'ipv6');
  const gateways: WindowsRoute[] = want.gateways.map((g) => ({
    destination: g.family === 'ipv4' ? '0.0.0.0' : '::',
    prefixLength: 0,
    nextHop: g.address,
    family: g.family,
    ...(g.metric !== undefined ? { metric: g.metric } : {}),
  }));
  const first = v4[0];
  if (first && !want.dhcp4)
    await setStaticIpv4(
      ctx.platform,
      have.ifIndex,
      first,
      want.gateways.find((g) => g.family === 'ipv4'),
    );
  persistTcpipSettings(win, have.guid, want);
  const v6routes = [...gateways, ...want.routes].filter((r) => r.family === 'ipv6');
  if (v6.length > 0 || v6routes.length > 0) await persistIpv6(ctx.platform, have.ifIndex, v6, v6routes);
  for (const a of want.addresses) win.addIpAddress(ref, a.address, a.prefixLength, a.family);
  for (const r of [...gateways, ...want.routes]) win.addRoute(ref, r);
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
      ctx.log.debug(
        `Adapter ${a.ifIndex} '${a.friendlyName}' ${a.mac || '(no MAC)'} ${a.guid} mtu ${a.mtu} ${a.dhcpv4 ? 'dhcp' : 'static'} ${a.unicast.map((u) => `${u.address}/${u.prefixLength}`).join(' ')}`,
      );
    }
    const macs = new Map(adapters.filter((a) => a.mac).map((a) => [a.mac, a.friendlyName]));
    const state = parseNetworkInput(networkFormatByName(nc.format) ?? (nc.format as InputKind), nc.config, {
      macs,
      key: 'network config',
    });
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
      await applyAdapter(ctx, want, have);
    }
    const search = [...new Set(plan.adapters.flatMap((a) => a.dnsSearch))];
    if (search.length > 0) ctx.windows.regSet('HKLM', TCPIP, 'SearchList', { type: 'REG_SZ', data: search.join(',') });
    if (missing.length > 0) {
      const known = adapters.map((a) => `${a.friendlyName} ${a.mac || '(no MAC)'}`).join(', ') || 'none';
      throw new PluginError(
        'NetworkConfigPlugin',
        `no network adapter with MAC ${missing.join(', ')} (adapters here: ${known})`,
      );
    }
    return { status: 'done', reboot: false };
  },
};
