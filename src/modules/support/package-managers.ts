// Newer cloud-init's per-manager `packages` ({apt: [...]}, {snap: [...]}): which manager installs what, as
// distro.install_packages splits it.
import { ModuleError, type ModuleContext } from '../module';

export type PackageSpec = string | [string, string];
export type ManagerName = 'apt' | 'snap';

const KNOWN_MANAGERS: readonly ManagerName[] = ['apt', 'snap'];
const MODULE = 'package_update_upgrade_install';

/** _validate_entry: a name, or [name] / [name, version]; anything else is refused with its place in the list. */
function validateEntry(entry: unknown, where: string): PackageSpec {
  if (typeof entry === 'string') return entry;
  if (Array.isArray(entry) && entry.length === 1) return String(entry[0]);
  if (Array.isArray(entry) && entry.length === 2) return [String(entry[0]), String(entry[1])];
  throw new ModuleError(
    MODULE,
    `Invalid 'packages' yaml specification at ${where}: ${JSON.stringify(entry)} must be a name or [name, version]`,
  );
}

export interface SplitPackages {
  /** Entries without a manager: the distro's own managers install them. */
  generic: PackageSpec[];
  byManager: Map<ManagerName, PackageSpec[]>;
}

/** _extract_package_by_manager: mappings name their manager; an unknown manager's list is logged and left out. */
export function splitPackages(ctx: ModuleContext, packages: unknown): SplitPackages {
  const list = packages === undefined || packages === null ? [] : Array.isArray(packages) ? packages : [packages];
  const out: SplitPackages = { generic: [], byManager: new Map() };
  list.forEach((entry, i) => {
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) {
      for (const [manager, defs] of Object.entries(entry as Record<string, unknown>)) {
        if (!(KNOWN_MANAGERS as readonly string[]).includes(manager)) {
          ctx.recoverable(
            'ERROR',
            `Cannot install packages under '${manager}' as it is not a supported package manager!`,
          );
          continue;
        }
        const specs = out.byManager.get(manager as ManagerName) ?? [];
        for (const [j, d] of (Array.isArray(defs) ? defs : [defs]).entries())
          specs.push(validateEntry(d, `packages[${i}].${manager}[${j}]`));
        out.byManager.set(manager as ManagerName, specs);
      }
    } else out.generic.push(validateEntry(entry, `packages[${i}]`));
  });
  return out;
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
