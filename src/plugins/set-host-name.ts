// SetHostNamePlugin: sets the computer name from the metadata's host name; a change needs a reboot.
import type { Log } from '../util/log';
import type { WindowsSystem } from '../platform/windows/windows-system';
import { toComputerName } from './netbios-name';
import type { Plugin, PluginContext, PluginResult } from './plugin';

/** Sets the name when it differs from the current and pending one; returns whether a reboot is needed. */
export function applyHostName(win: WindowsSystem, log: Log, hostname: string, netbios: boolean): boolean {
  const { name, changes } = toComputerName(hostname, netbios);
  for (const c of changes) log.warn(`Host name: ${c}`);
  const current = win.computerName();
  if (current.active.toLowerCase() === name.toLowerCase() && current.pending.toLowerCase() === name.toLowerCase()) {
    log.info(`Computer name already is ${name}`);
    return false;
  }
  if (current.pending.toLowerCase() === name.toLowerCase()) {
    log.info(`Computer name ${name} is already set for the next boot`);
    return true;
  }
  win.setComputerName(name);
  return true;
}

export const setHostNamePlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin',
  name: 'SetHostNamePlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const hostname = ctx.instance?.localHostname;
    if (!hostname) {
      ctx.log.info('The metadata gives no host name; leaving the computer name as it is');
      return { status: 'done', reboot: false };
    }
    const reboot = applyHostName(ctx.windows, ctx.log, hostname, ctx.conf.boolValue('netbios_host_name_compatibility'));
    return { status: 'done', reboot };
  },
};
