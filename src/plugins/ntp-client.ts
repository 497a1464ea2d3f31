// NTPClientPlugin: the Windows Time service started automatically, and the hardware clock read as UTC when real_time_clock_utc is set.
import { PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';

const SERVICE_RUNNING = 4;
const TIMEZONE_KEY = 'SYSTEM\\CurrentControlSet\\Control\\TimeZoneInformation';

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
      // cloudbase-init asks the DHCP server for option 42; kiln does not yet, so w32time keeps its configured peers.
      ctx.log.warn('ntp_use_dhcp_config: kiln does not read NTP servers from DHCP yet; set them with #cloud-config ntp: servers');
    }
    return { status: 'done', reboot: false };
  },
};
