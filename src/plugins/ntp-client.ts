// NTPClientPlugin: the hardware clock's time base, the Windows Time service started automatically, its peers from DHCP
// option 42.
import { DhcpOption, parseNtpServersOption } from '../platform/windows/win32/dhcpcsvc';
import { setNtpPeers } from './ntp-peers';
import { PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';

const SERVICE_RUNNING = 4;
const TIMEZONE_KEY = 'SYSTEM\\CurrentControlSet\\Control\\TimeZoneInformation';

/**
 * As cloudbase-init: the NTP servers (option 42) of the first DHCP lease that carries them, among the adapters that are
 * up.
 */
function dhcpNtpServers(ctx: PluginContext): string[] {
  for (const adapter of ctx.windows.netAdapters().filter((a) => a.dhcpv4 && a.up)) {
    const servers = parseNtpServersOption(ctx.windows.dhcpOption(adapter.guid, DhcpOption.ntpServers));
    if (servers.length > 0) return servers;
  }
  return [];
}

export const ntpClientPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.ntpclient.NTPClientPlugin',
  name: 'NTPClientPlugin',
  // As cloudbase-init: before networking, so the clock is right before any TLS to the metadata service.
  stage: 'pre-networking',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const system32 = (exe: string) => ctx.platform.hostPath(`Windows\\System32\\${exe}`);
    // The hardware clock read as UTC (or local time) as real_time_clock_utc says; a change needs a reboot.
    let reboot = false;
    const wantUtc = ctx.conf.boolValue('real_time_clock_utc');
    const current = ctx.windows.regGet('HKLM', TIMEZONE_KEY, 'RealTimeIsUniversal');
    if ((current?.type === 'REG_DWORD' && current.data === 1) !== wantUtc) {
      ctx.windows.regSet('HKLM', TIMEZONE_KEY, 'RealTimeIsUniversal', { type: 'REG_DWORD', data: wantUtc ? 1 : 0 });
      ctx.log.info(`RTC set to UTC: ${wantUtc}`);
      reboot = true;
    }
    if (ctx.conf.boolValue('ntp_enable_service')) {
      const state = ctx.windows.serviceState('W32Time');
      if (state === undefined)
        throw new PluginError('NTPClientPlugin', 'the Windows Time service (W32Time) is not installed');
      await ctx.platform.run([system32('sc.exe'), 'config', 'W32Time', 'start=', 'auto']);
      // Started when there is a network and stopped when there is none, as cloudbase-init sets its triggers.
      await ctx.platform.run([system32('sc.exe'), 'triggerinfo', 'w32time', 'start/networkon', 'stop/networkoff']);
      if (state !== SERVICE_RUNNING) await ctx.platform.run([system32('net.exe'), 'start', 'W32Time']);
      ctx.log.info('NTP client service enabled');
    }
    if (ctx.conf.bool('ntp_use_dhcp_config')) {
      const servers = dhcpNtpServers(ctx);
      if (servers.length === 0) {
        ctx.log.info(
          'ntp_use_dhcp_config: no DHCP lease carries NTP servers (option 42); tried again at the next boot',
        );
        return { status: 'next-boot', reboot };
      }
      await setNtpPeers(ctx, servers);
      ctx.log.info(`NTP client configured. Server(s): ${servers.join(', ')}`);
    }
    return { status: 'done', reboot };
  },
};
