// Plugin execution state in the registry, where cloudbase-init keeps it: 1 done, 2 run again at the next boot.
import type { WindowsSystem } from '../platform/windows/windows-system';

export const CLOUDBASE_KEY = 'SOFTWARE\\Cloudbase Solutions\\Cloudbase-Init';
export const PLUGIN_EXECUTION_DONE = 1;
export const PLUGIN_EXECUTE_ON_NEXT_BOOT = 2;

/** HKLM\SOFTWARE\Cloudbase Solutions\Cloudbase-Init\<instance id>\Plugins, or ...\Plugins before metadata discovery. */
export function pluginsKey(instanceId: string | undefined): string {
  return instanceId ? `${CLOUDBASE_KEY}\\${instanceId}\\Plugins` : `${CLOUDBASE_KEY}\\Plugins`;
}

/** kiln's own bookkeeping beside cloudbase-init's: consecutive reboot-and-run-again requests per plugin. */
export function rebootLoopKey(instanceId: string | undefined): string {
  return instanceId ? `${CLOUDBASE_KEY}\\${instanceId}\\KilnRebootLoop` : `${CLOUDBASE_KEY}\\KilnRebootLoop`;
}

export class PluginState {
  constructor(
    private readonly win: WindowsSystem,
    private readonly instanceId: string | undefined,
  ) {}

  get(plugin: string): number | undefined {
    const v = this.win.regGet('HKLM', pluginsKey(this.instanceId), plugin);
    return v?.type === 'REG_DWORD' ? v.data : undefined;
  }
  set(plugin: string, status: number): void {
    this.win.regSet('HKLM', pluginsKey(this.instanceId), plugin, { type: 'REG_DWORD', data: status });
  }
  /** How many boots in a row PLUGIN has asked for a reboot and to run again. */
  rebootRequests(plugin: string): number {
    const v = this.win.regGet('HKLM', rebootLoopKey(this.instanceId), plugin);
    return v?.type === 'REG_DWORD' ? v.data : 0;
  }
  setRebootRequests(plugin: string, count: number): void {
    if (count === 0) this.win.regDeleteValue('HKLM', rebootLoopKey(this.instanceId), plugin);
    else this.win.regSet('HKLM', rebootLoopKey(this.instanceId), plugin, { type: 'REG_DWORD', data: count });
  }
}
