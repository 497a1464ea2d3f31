// The Windows Time service's peers set as cloudbase-init's set_ntp_client_config sets them: w32tm /config … /update.
import type { PluginContext } from './plugin';

/**
 * Makes SERVERS the Windows Time service's manual peers and has it reread its configuration. cloudbase-init's
 * NTPClientPlugin joins them with commas, which w32tm reads as a peer's flags; like its cloud-config ntp plugin,
 * kiln separates them with spaces.
 */
export async function setNtpPeers(ctx: PluginContext, servers: string[]): Promise<void> {
  const w32tm = ctx.platform.hostPath('Windows\\System32\\w32tm.exe');
  await ctx.platform.run([
    w32tm,
    '/config',
    `/manualpeerlist:${servers.join(' ')}`,
    '/syncfromflags:manual',
    '/update',
  ]);
}
