// NTPClientPlugin: the Windows Time service started automatically, its peers from DHCP option 42, the hardware clock read as UTC when asked.
import { DhcpOption, parseNtpServersOption } from '../platform/windows/win32/dhcpcsvc';
import { PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';

const SERVICE_RUNNING = 4;
const TIMEZONE_KEY = 'SYSTEM\\CurrentControlSet\\Control\\TimeZoneInformation';

/** NTP servers (option 42) from the leases of the DHCP adapters that are up, without duplicates. */
function dhcpNtpServers(ctx: PluginContext): string[] {
  const servers = new Set<string>();
  for (const adapter of ctx.windows.netAdapters().filter((a) => a.dhcpv4 && a.up)) {
    for (const s of parseNtpServersOption(ctx.windows.dhcpOption(adapter.guid, DhcpOption.ntpServers))) servers.add(s);
  }
  return [...servers];
}

export const ntpClientPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.ntpclient.NTPClientPlugin',
  name: 'NTPClientPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    if (ctx.conf.bool('real_time_clock_utc')) {
      ctx.windows.regSet('HKLM', TIMEZONE_KEY, 'RealTimeIsUniversal', { type: 'REG_DWORD', data: 1 });
      ctx.log.info('The hardware clock is read as UTC (real_time_clock_utc)');
    }
    if (ctx.conf.bool('ntp_enable_service') ?? true) {
      const state = ctx.windows.serviceState('W32Time');
      if (state === undefined) throw new PluginError('NTPClientPlugin', 'the Windows Time service (W32Time) is not installed');
      await ctx.platform.run([ctx.platform.hostPath('Windows\\System32\\sc.exe'), 'config', 'W32Time', 'start=', 'auto']);
      if (state !== SERVICE_RUNNING) await ctx.platform.run([ctx.platform.hostPath('Windows\\System32\\net.exe'), 'start', 'W32Time']);
      ctx.log.info('Windows Time service set to start automatically and running');
    }
    if (ctx.conf.bool('ntp_use_dhcp_config')) {
      const servers = dhcpNtpServers(ctx);
      if (servers.length === 0) ctx.log.info('ntp_use_dhcp_config: no DHCP lease carries NTP servers (option 42); W32Time keeps its peers');
      else {
        // As cloudbase-init: the peers as a manual list, and the service told to re-read its configuration.
        await ctx.platform.run([ctx.platform.hostPath('Windows\\System32\\w32tm.exe'), '/config', `/manualpeerlist:${servers.join(' ')}`, '/syncfromflags:manual', '/update']);
        ctx.log.info(`NTP servers from DHCP: ${servers.join(', ')}`);
      }
    }
    return { status: 'done', reboot: false };
  },
};
