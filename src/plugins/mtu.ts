// MTUPlugin: each DHCP adapter's IPv4 MTU set to the interface MTU its lease carries (option 26), when
// mtu_use_dhcp_config.
import { DhcpOption, parseMtuOption } from '../platform/windows/win32/dhcpcsvc';
import { PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';
import { describeError } from '../util/errors';

export const mtuPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.common.mtu.MTUPlugin',
  name: 'MTUPlugin',
  // As cloudbase-init: before metadata discovery, so the metadata service is reached with the right MTU.
  stage: 'pre-metadata-discovery',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    // As cloudbase-init: run at every boot, so a lease's new MTU is applied.
    const again: PluginResult = { status: 'next-boot', reboot: false };
    if (!ctx.conf.boolValue('mtu_use_dhcp_config')) {
      ctx.log.debug('mtu_use_dhcp_config is false: MTUs left alone');
      return again;
    }
    const failures: string[] = [];
    for (const adapter of ctx.windows.netAdapters().filter((a) => a.dhcpv4 && a.up)) {
      const label = `${adapter.friendlyName || adapter.guid} (${adapter.mac})`;
      let data: Uint8Array | undefined;
      try {
        data = ctx.windows.dhcpOption(adapter.guid, DhcpOption.interfaceMtu);
      } catch (err) {
        failures.push(`${label}: ${describeError(err)}`);
        continue;
      }
      const mtu = parseMtuOption(data);
      if (mtu === undefined) {
        if (data)
          ctx.log.warn(`${label}: DHCP option 26 is malformed (${data.length} bytes); MTU left at ${adapter.mtu}`);
        else ctx.log.debug(`${label}: the DHCP lease carries no MTU`);
        continue;
      }
      if (mtu === adapter.mtu) {
        ctx.log.info(`${label}: MTU is already ${mtu} (DHCP)`);
        continue;
      }
      try {
        ctx.windows.setInterfaceMtu(adapter, 'ipv4', mtu);
        ctx.log.info(`${label}: MTU set to ${mtu} from DHCP (was ${adapter.mtu})`);
      } catch (err) {
        failures.push(`${label}: ${describeError(err)}`);
      }
    }
    if (failures.length > 0) throw new PluginError('MTUPlugin', `could not apply the DHCP MTU: ${failures.join('; ')}`);
    return again;
  },
};
