// Newer cloud-init's per-manager `packages` ({apt: [...]}, {snap: [...]}): which manager installs what, as
// distro.install_packages splits it.
import { ModuleError, type ModuleContext } from '../module';
import { isRecord } from './config-shapes';

export type PackageSpec = string | [string, string];
export type ManagerName = 'apt' | 'snap';

const KNOWN_MANAGERS: readonly ManagerName[] = ['apt', 'snap'];
const MODULE = 'package_update_upgrade_install';

/** _validate_entry: a name, or [name] / [name, version]; undefined for anything else. */
function entrySpec(entry: unknown): PackageSpec | undefined {
  if (typeof entry === 'string') return entry;
  if (Array.isArray(entry) && entry.length === 1) return String(entry[0]);
  if (Array.isArray(entry) && entry.length === 2) return [String(entry[0]), String(entry[1])];
  return undefined;
}

/** `packages` as distro.install_packages splits it (_extract_package_by_manager), before anything is installed. */
export interface PackageList {
  /** Entries without a manager: the distro's own managers install them. */
  readonly generic: readonly PackageSpec[];
  readonly byManager: ReadonlyMap<ManagerName, readonly PackageSpec[]>;
  /** The managers kiln does not know, in order (up to an invalid entry): each an ERROR when installing. */
  readonly unsupportedManagers: readonly string[];
  /** The error of the first entry that is neither a name nor [name, version]: installing fails with it. */
  readonly invalidEntry: string | undefined;
}

/**
 * _extract_package_by_manager of the entries of `packages`: mappings name their manager; the first entry that is
 * neither a name nor [name, version] ends the reading, with its place in the list.
 */
export function readPackageList(entries: readonly unknown[]): PackageList {
  const generic: PackageSpec[] = [];
  const byManager = new Map<ManagerName, PackageSpec[]>();
  const unsupportedManagers: string[] = [];
  const list = (invalid?: { entry: unknown; where: string }): PackageList => ({
    generic,
    byManager,
    unsupportedManagers,
    invalidEntry:
      invalid &&
      `Invalid 'packages' yaml specification at ${invalid.where}: ${JSON.stringify(invalid.entry)} must be a name or [name, version]`,
  });
  for (const [i, entry] of entries.entries()) {
    if (!isRecord(entry)) {
      const spec = entrySpec(entry);
      if (spec === undefined) return list({ entry, where: `packages[${i}]` });
      generic.push(spec);
      continue;
    }
    for (const [manager, defs] of Object.entries(entry)) {
      if (!(KNOWN_MANAGERS as readonly string[]).includes(manager)) {
        unsupportedManagers.push(manager);
        continue;
      }
      const specs = byManager.get(manager as ManagerName) ?? [];
      byManager.set(manager as ManagerName, specs);
      for (const [j, d] of (Array.isArray(defs) ? defs : [defs]).entries()) {
        const spec = entrySpec(d);
        if (spec === undefined) return list({ entry: d, where: `packages[${i}].${manager}[${j}]` });
        specs.push(spec);
      }
    }
  }
  return list();
}

/**
 * What installing LIST logs and refuses before any install, as _extract_package_by_manager does: an ERROR for each
 * manager kiln does not know (its list left out), then the first invalid entry's error.
 */
export function checkPackageList(ctx: ModuleContext, list: PackageList): void {
  for (const manager of list.unsupportedManagers)
    ctx.recoverable('ERROR', `Cannot install packages under '${manager}' as it is not a supported package manager!`);
  if (list.invalidEntry !== undefined) throw new ModuleError(MODULE, list.invalidEntry);
}

/**
 * The managers cloud-init's distro class lists, in order: Ubuntu has apt then snap, the rest of the Debian family apt.
 */
export function distroManagers(ctx: ModuleContext): ManagerName[] {
  if (ctx.distro.name === 'ubuntu') return ['apt', 'snap'];
  return ctx.distro.family === 'debian' ? ['apt'] : [];
}

/** util.expand_package_list: [name, version] joined as the manager spells a version ('=' for apt/apk, '-' for rpm). */
export function specText(spec: PackageSpec, join: string): string {
  return typeof spec === 'string' ? spec : `${spec[0]}${join}${spec[1]}`;
}

/** Snap installs one package per command; a version is a channel. */
export function snapInstallArgv(spec: PackageSpec): string[] {
  return typeof spec === 'string' ? ['snap', 'install', spec] : ['snap', 'install', spec[0], `--channel=${spec[1]}`];
}

/** The spec's identity for set arithmetic (a package named twice is tried once, as cloud-init's sets do). */
export function specKey(spec: PackageSpec): string {
  return typeof spec === 'string' ? spec : `${spec[0]}\u0000${spec[1]}`;
}
