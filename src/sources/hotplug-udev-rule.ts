// The udev rule that hands network add/remove events to cloud-init's hook-hotplug script, installed or removed as
// cloud-init's cc_install_hotplug does; shared by the install_hotplug module and `devel hotplug-hook enable`.
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';
import { datasourceByName } from './registry';
import { readHotplugEnabledScopes, supportsEvent, updateEventEnabled, userNetworkEvents } from './update-events';

/**
 * cloud-init 25.1's path and text (Debian 13's package; 22.4 wrote 10-cloud-init-hook-hotplug.rules and had no
 * source lines): the rule runs the hook-hotplug script in LIBEXECDIR, which writes to the FIFO
 * cloud-init-hotplugd.socket listens on. EXTRA, a source's own lines, go between the ACTION test and the hook.
 */
export const HOTPLUG_UDEV_PATH = '/etc/udev/rules.d/90-cloud-init-hook-hotplug.rules';

export function hotplugUdevRule(libexecdir: string, extra = ''): string {
  return [
    '# Installed by cloud-init due to network hotplug userdata',
    `ACTION!="add|remove", GOTO="cloudinit_end"${extra ? `\n\n${extra}` : ''}`,
    'LABEL="cloudinit_hook"',
    `SUBSYSTEM=="net", RUN+="${libexecdir}/hook-hotplug"`,
    'LABEL="cloudinit_end"',
    '',
  ].join('\n');
}

const PATH_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

async function udevadmInTarget(p: Platform): Promise<boolean> {
  for (const dir of PATH_DIRS) {
    const path = `${dir}/udevadm`;
    if (p.stat) {
      const st = await p.stat(path);
      if (st && st.type === 'file' && (st.mode & 0o111) !== 0) return true;
    } else if (await p.exists(path)) return true;
  }
  return false;
}

export interface InstallHotplugInput {
  platform: Platform;
  log: Log;
  /** The found source's name (cloud-init's dsname): 'Ec2', 'OpenStack' … */
  source: string;
  /** The merged cloud-config. */
  cfg: Record<string, unknown>;
  /** /var/lib/cloud, where `hotplug.enabled` lives. */
  cloudDir: string;
  /** A warning the caller reports (a module's recoverable problem). */
  warn?: (message: string) => void;
}

/** What happened: the rule written, removed, or left alone (and why). */
export type InstallHotplugOutcome = 'installed' | 'uninstalled' | 'unsupported' | 'not-enabled' | 'no-udevadm';

export async function installHotplug(input: InstallHotplugInput): Promise<InstallHotplugOutcome> {
  const { platform: p, log } = input;
  const requested = (userNetworkEvents(input.cfg) ?? []).includes('hotplug');
  const supported = supportsEvent(input.source, 'hotplug');
  const scopes = await readHotplugEnabledScopes(p, input.cloudDir, log);
  const enabled = updateEventEnabled({
    source: input.source,
    cfg: input.cfg,
    event: 'hotplug',
    hotplugEnabledScopes: scopes,
    log,
  });
  if (!(supported && enabled)) {
    if (await p.exists(HOTPLUG_UDEV_PATH)) {
      log.debug('Uninstalling hotplug, not enabled');
      await p.remove(HOTPLUG_UDEV_PATH);
      await p.run(['udevadm', 'control', '--reload-rules']);
      return 'uninstalled';
    }
    if (requested) {
      (input.warn ?? ((m: string) => log.warn(m)))(
        'Hotplug is unsupported by current datasource. Udev rules will NOT be installed.',
      );
      return 'unsupported';
    }
    log.debug('Skipping hotplug install, not enabled');
    return 'not-enabled';
  }
  if (!(await udevadmInTarget(p))) {
    log.debug('Skipping hotplug install, udevadm not found');
    return 'no-udevadm';
  }
  // "This may need to turn into a distro property": cloud-init's own fallback, kept as it is.
  const libexecdir = (await p.exists('/usr/libexec/cloud-init')) ? '/usr/libexec/cloud-init' : '/usr/lib/cloud-init';
  await p.writeFile(HOTPLUG_UDEV_PATH, hotplugUdevRule(libexecdir, datasourceByName(input.source)?.hotplugUdevRules), {
    mode: 0o644,
  });
  await p.run(['udevadm', 'control', '--reload-rules']);
  return 'installed';
}
