// cc_grub_dpkg: tells debconf which disk (BIOS) or partition (EFI) grub installs to, with debconf-set-selections.
import { isRecord } from './support/config-shapes';
import { isFalse, isTrue } from './support/config-values';
import { pyStr } from '../util/python-str';
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
  const probe = await ctx.platform.run(['grub-probe', '-t', efi ? 'device' : 'disk', efi ? '/boot/efi' : '/boot'], { allowFailure: true });
  let disk = '';
  if (probe.code === 0) disk = probe.stdout.trim();
  else if (probe.stderr.includes(NO_CANONICAL_PATH)) ctx.log.debug(`grub-probe '${NO_CANONICAL_PATH}'`);
  else {
    // cloud-init lets any other grub-probe failure fail the module.
    throw new ModuleError(MODULE, `grub-probe could not find the device of ${efi ? '/boot/efi' : '/boot'} (exit ${probe.code}): ${probe.stderr.trim()}`);
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

/** A device key's value as cloud-init's get_cfg_option_str reads it: absent → undefined, scalars as Python's str(). */
function deviceOption(mycfg: Record<string, unknown>, key: string): string | undefined {
  if (!(key in mycfg)) return undefined;
  const v = mycfg[key];
  if (v !== null && typeof v === 'object') throw new ModuleError(MODULE, `'${key}' must be a device path (a string), got ${Array.isArray(v) ? 'a list' : 'a mapping'}`);
  return pyStr(v);
}

/** The debconf lines for grub-pc (BIOS) or grub-efi (EFI), as cloud-init's get_debconf_config builds them. */
export async function grubDebconfSelections(ctx: ModuleContext, mycfg: Record<string, unknown>): Promise<string> {
  if (await isEfiBooted(ctx)) {
    const idevs = deviceOption(mycfg, 'grub-efi/install_devices') ?? (await fetchInstallDevice(ctx, true));
    return `grub-pc grub-efi/install_devices string ${idevs}\n`;
  }
  const idevs = deviceOption(mycfg, 'grub-pc/install_devices') ?? (await fetchInstallDevice(ctx, false));
  const given = mycfg['grub-pc/install_devices_empty'];
  // Absent: empty exactly when no device was found. Otherwise translate_bool: falsy values are false, others is_true.
  let empty: boolean;
  if (given === undefined || given === null) empty = !idevs;
  else if (typeof given === 'boolean') empty = given;
  else empty = given === '' || given === 0 ? false : isTrue(given);
  return `grub-pc grub-pc/install_devices string ${idevs}\ngrub-pc grub-pc/install_devices_empty boolean ${empty}\n`;
}

export const grubDpkgModule: Module = {
  name: MODULE,
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['ubuntu', 'debian'],
  // Opt-in as in 25.1 (its meta's activate_by_schema_keys, since 24.4); 22.4 ran it on every instance.
  activateBy: ['grub_dpkg', 'grub-dpkg'],
  async run(ctx, cfg): Promise<void> {
    const raw = 'grub_dpkg' in cfg ? cfg.grub_dpkg : cfg['grub-dpkg'];
    // Python's `if not mycfg: mycfg = {}`: any empty value means the defaults; another non-mapping fails.
    const empty = raw === undefined || raw === null || raw === false || raw === '' || raw === 0 || (Array.isArray(raw) && raw.length === 0);
    if (!empty && !isRecord(raw)) {
      throw new ModuleError(MODULE, `'grub_dpkg' must be a mapping (enabled, grub-pc/install_devices …), got ${Array.isArray(raw) ? 'a list' : `a ${typeof raw}`}`);
    }
    const mycfg = isRecord(raw) ? raw : {};
    // 25.1 (since 24.4): off unless `enabled` says so; 22.4 defaulted to on.
    const enabled = 'enabled' in mycfg ? mycfg.enabled : false;
    if (isFalse(enabled)) {
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
};
