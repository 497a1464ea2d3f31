// cc_grub_dpkg: tells debconf which disk (BIOS) or partition (EFI) grub installs to, with debconf-set-selections.
import type { CloudConfigValue } from '../config/schema/cloud-config-types';
import { configModule } from './support/config-module';
import { readConfigValue } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { pyStr } from '../util/python-str';
import { pyTruthy } from '../util/python-truthy';
import { whichInTarget } from './support/distro-facts';
import { ModuleError, type Module, type ModuleContext } from './module';

const MODULE = 'grub_dpkg';

/** Said by grub-probe in a container, where /boot's disk is the host's and is missing from /dev: not an error. */
const NO_CANONICAL_PATH = 'failed to get canonical path';

/** cloud-init's is_efi_booted: the firmware is EFI when the kernel shows /sys/firmware/efi. */
async function isEfiBooted(ctx: ModuleContext): Promise<boolean> {
  return ctx.platform.exists('/sys/firmware/efi');
}

/**
 * cloud-init's fetch_idevs: the device grub-probe finds behind /boot (BIOS: its disk) or /boot/efi (EFI: its
 * partition), named by its first /dev/disk/by-id link when udev has one, else by its plain name; '' when
 * there is none (no grub-probe, a container, a device missing from /dev).
 */
export async function fetchInstallDevice(ctx: ModuleContext, efi: boolean): Promise<string> {
  if (!(await whichInTarget(ctx.platform, 'grub-probe'))) {
    ctx.log.debug("'grub-probe' not found in $PATH");
    return '';
  }
  const probe = await ctx.platform.run(['grub-probe', '-t', efi ? 'device' : 'disk', efi ? '/boot/efi' : '/boot'], {
    allowFailure: true,
  });
  let disk = '';
  if (probe.code === 0) disk = probe.stdout.trim();
  else if (probe.stderr.includes(NO_CANONICAL_PATH)) ctx.log.debug(`grub-probe '${NO_CANONICAL_PATH}'`);
  else {
    // cloud-init lets any other grub-probe failure fail the module.
    throw new ModuleError(
      MODULE,
      `grub-probe could not find the device of ${efi ? '/boot/efi' : '/boot'} (exit ${probe.code}): ${probe.stderr.trim()}`,
    );
  }
  if (!disk || !(await ctx.platform.exists(disk))) return '';

  let links: string[] = [];
  const udev = await ctx.platform.run(['udevadm', 'info', '--root', '--query=symlink', disk], { allowFailure: true });
  if (udev.code === 0) links = udev.stdout.trim().split(/\s+/).filter(Boolean);
  else {
    const msg = `udevadm DEVLINKS symlink query failed for disk='${disk}': ${udev.stderr.trim() || `exit ${udev.code}`}`;
    ctx.log.warn(msg);
    ctx.recoverable('WARNING', msg);
  }
  ctx.log.debug(`considering these device symlinks: ${links.join(',')}`);
  const byId = links.filter((l) => l.includes('disk/by-id')).sort();
  ctx.log.debug(`filtered to these disk/by-id symlinks: ${byId.join(',')}`);
  const chosen = byId[0] ?? disk;
  ctx.log.debug(`selected ${chosen}`);
  return chosen;
}

/** grub_dpkg (or its alias) as read: each key as get_debconf_config and handle read it. */
type GrubDpkgSettings = CloudConfigValue<'grub_dpkg'>;

/** The debconf lines for grub-pc (BIOS) or grub-efi (EFI), as cloud-init's get_debconf_config builds them. */
export async function grubDebconfSelections(ctx: ModuleContext, mycfg: GrubDpkgSettings): Promise<string> {
  if (await isEfiBooted(ctx)) {
    const idevs = mycfg['grub-efi/install_devices'] ?? (await fetchInstallDevice(ctx, true));
    return `grub-pc grub-efi/install_devices string ${idevs}\n`;
  }
  const idevs = mycfg['grub-pc/install_devices'] ?? (await fetchInstallDevice(ctx, false));
  // Absent (or null): empty exactly when no device was found.
  const empty = mycfg['grub-pc/install_devices_empty'] ?? !idevs;
  return `grub-pc grub-pc/install_devices string ${idevs}\ngrub-pc grub-pc/install_devices_empty boolean ${empty}\n`;
}

/** install_devices_empty: null is as if absent; any other value by translate_bool (a boolean stays). */
function installDevicesEmpty(value: unknown): unknown {
  return value === null ? undefined : readConfigValue('bool', value);
}

/**
 * grub_dpkg as handle reads it: a Python-false value is {} (`if not mycfg: mycfg = {}`, so it still hides the
 * alias); another non-mapping is refused in kiln's words; enabled by is_false, the device keys by
 * get_cfg_option_str (null is 'None').
 */
function grubDpkgSetting(raw: unknown): unknown {
  if (!pyTruthy(raw)) return {};
  if (!isRecord(raw))
    throw new ModuleError(
      MODULE,
      `'grub_dpkg' must be a mapping (enabled, grub-pc/install_devices …), got ${Array.isArray(raw) ? 'a list' : `a ${typeof raw}`}`,
    );
  return readConfigValue(
    {
      enabled: 'not-false',
      'grub-pc/install_devices': 'str',
      'grub-pc/install_devices_empty': installDevicesEmpty,
      'grub-efi/install_devices': 'str',
    },
    raw,
  );
}

export const grubDpkgModule: Module = configModule({
  name: MODULE,
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['ubuntu', 'debian'],
  // Opt-in as in 25.1 (its meta's activate_by_schema_keys, since 24.4); 22.4 ran it on every instance.
  activateBy: ['grub_dpkg', 'grub-dpkg'],
  configKeys: { grub_dpkg: grubDpkgSetting, 'grub-dpkg': grubDpkgSetting },
  async run(ctx, cfg): Promise<void> {
    // The alias is read only without grub_dpkg (cfg.get("grub_dpkg", cfg.get("grub-dpkg", {}))).
    const mycfg: GrubDpkgSettings = cfg.grub_dpkg ?? cfg['grub-dpkg'] ?? {};
    // 25.1 (since 24.4): off unless `enabled` says so; 22.4 defaulted to on.
    const enabled = mycfg.enabled ?? false;
    if (!enabled) {
      ctx.log.debug(`${MODULE} disabled by config grub_dpkg/enabled=${pyStr(enabled)}`);
      return;
    }
    const selections = await grubDebconfSelections(ctx, mycfg);
    ctx.log.debug(`Setting grub debconf-set-selections with '${selections}'`);
    // A failing debconf-set-selections is logged, not fatal, as in cloud-init.
    const r = await ctx.platform.run(['debconf-set-selections'], { input: selections, allowFailure: true });
    if (r.code !== 0) {
      const msg = `Failed to run debconf-set-selections for grub_dpkg: exit ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`;
      ctx.log.warn(msg);
      ctx.recoverable('WARNING', msg);
    }
  },
});
