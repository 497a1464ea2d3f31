// cc_package_update_upgrade_install: package index update, upgrade, installs through the distro's package manager,
// reboot if required.
import { distroOpsFor } from '../platform/linux/distro/detect-distro';
import type { DistroOps } from '../platform/linux/distro/distro';
import { describeError } from '../util/errors';
import { configModule } from './support/config-module';
import { OwnParser } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { updatePackageSources } from './support/install-packages';
import {
  checkPackageList,
  distroManagers,
  type PackageList,
  type PackageSpec,
  readPackageList,
  snapInstallArgv,
  specKey,
  specText,
} from './support/package-managers';
import { ModuleError, type Module, type ModuleContext } from './module';

/** The files whose presence asks for a reboot after an upgrade or install (25.1: Debian's, then Alpine's). */
export const REBOOT_MARKERS = ['/var/run/reboot-required', '/run/reboot-needed'];
export const REBOOT_COMMAND = ['/sbin/reboot'];

/** `packages` as the module reads it. */
interface PackagesSetting {
  /** The list as given (a non-list is a one-item list), as JSON, as the failure message quotes it. */
  readonly json: string;
  /** Whether it names a package at all (a plain entry, or an item of a manager's list): the module has work. */
  readonly namesAny: boolean;
  readonly list: PackageList;
}

/** packages as get_cfg_option_list and distro.install_packages read it: null is none, a non-list one entry. */
function readPackages(value: unknown): PackagesSetting {
  const listed: readonly unknown[] = Array.isArray(value) ? value : value === null ? [] : [value];
  return {
    json: JSON.stringify(listed),
    namesAny: listed.some(
      (p) => !isRecord(p) || Object.values(p).some((defs) => !Array.isArray(defs) || defs.length > 0),
    ),
    list: readPackageList(listed),
  };
}

/** `packages` items: a name, or [name, version] joined as the family's package manager spells a version. */
export function expandPackageList(packages: unknown, family: string): string[] {
  if (packages === undefined || packages === null) return [];
  const list = Array.isArray(packages) ? packages : [packages];
  const join = versionJoin(family);
  return list.map((p, i) => {
    if (typeof p === 'string') return p;
    if (Array.isArray(p) && p.length === 1) return String(p[0]);
    if (Array.isArray(p) && p.length === 2) return `${String(p[0])}${join}${String(p[1])}`;
    throw new ModuleError(
      'package_update_upgrade_install',
      `packages[${i}] must be a name or [name, version], got ${JSON.stringify(p)}`,
    );
  });
}

function versionJoin(family: string): string {
  return family === 'debian' || family === 'alpine' || family === 'unknown' ? '=' : '-';
}

/** Where a target's snap command is (cloud-init's which('snap')). */
const SNAP_PATHS = ['/usr/bin/snap', '/usr/local/bin/snap', '/snap/bin/snap'];

function union(a: readonly PackageSpec[], b: readonly PackageSpec[]): PackageSpec[] {
  const seen = new Set<string>();
  return [...a, ...b].filter((s) => !seen.has(specKey(s)) && Boolean(seen.add(specKey(s))));
}

/** Snap's install_packages: one `snap install` per package; returns the ones that failed. */
async function snapInstall(ctx: ModuleContext, specs: readonly PackageSpec[]): Promise<PackageSpec[]> {
  const failed: PackageSpec[] = [];
  for (const spec of specs) {
    const r = await ctx.platform.run(snapInstallArgv(spec), { allowFailure: true });
    if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0) failed.push(spec);
  }
  return failed;
}

/**
 * Newer cloud-init's distro.install_packages: the distro's own manager takes the plain entries and its own
 * ({apt: …} on the Debian family); on Ubuntu snap then takes its entries and the plain ones apt failed; a manager
 * the distro does not list installs its entries last. Throws naming every package that ended up failed.
 */
async function installByManager(ctx: ModuleContext, ops: DistroOps, split: PackageList): Promise<void> {
  checkPackageList(ctx, split);
  const managers = distroManagers(ctx);
  const join = versionJoin(ctx.distro.family);
  const failed = new Map<string, PackageSpec>();
  const note = (specs: readonly PackageSpec[]) => {
    for (const s of specs) failed.set(specKey(s), s);
  };
  const aptOwn = managers.includes('apt') ? (split.byManager.get('apt') ?? []) : [];
  let generic = union(split.generic, []);
  const native = union(generic, aptOwn);
  if (native.length > 0) {
    try {
      // install_packages refreshes first on apt/pacman/apk families (a no-op after the update step's semaphore).
      if (!['redhat', 'suse'].includes(ctx.distro.family))
        await updatePackageSources(ctx, 'package_update_upgrade_install');
      await runLogged(
        ctx,
        ops,
        'install',
        native.map((s) => specText(s, join)),
      );
      generic = [];
    } catch (err) {
      ctx.log.info(`${describeError(err)}; failed: ${native.map((s) => specText(s, join)).join(', ')}`);
      note(native);
      const own = new Set(aptOwn.map(specKey));
      generic = native.filter((s) => !own.has(specKey(s)));
    }
  }
  const snapOwn = split.byManager.get('snap') ?? [];
  if (managers.includes('snap')) {
    const toTry = union(snapOwn, generic);
    for (const s of toTry) failed.delete(specKey(s));
    let available = false;
    for (const p of SNAP_PATHS) if (await ctx.platform.exists(p)) available = true;
    if (!available) {
      ctx.log.debug("Package manager 'snap' not available");
      note(toTry);
    } else note(await snapInstall(ctx, toTry));
  } else if (snapOwn.length > 0) note(await snapInstall(ctx, snapOwn));
  const aptElsewhere = managers.includes('apt') ? [] : (split.byManager.get('apt') ?? []);
  if (aptElsewhere.length > 0) {
    ctx.log.warn(
      `apt is not the package manager of ${ctx.distro.name}; not installing ${aptElsewhere.map((s) => specText(s, '=')).join(', ')}`,
    );
    note(aptElsewhere);
  }
  if (failed.size > 0) {
    const names = [...failed.values()].map((s) => specText(s, join)).join(', ');
    throw new ModuleError(
      'package_update_upgrade_install',
      `Failed to install the following packages: ${names}. See associated package manager logs for more details.`,
    );
  }
}

export interface PackageModuleDeps {
  /** Waits between checks after the reboot command (cloud-init: 1, 2, 4, 8, 16, 32 seconds). */
  sleep: (ms: number) => Promise<void>;
  distroOps: (ctx: ModuleContext) => Promise<DistroOps>;
}

/** The first of PATHS that is a file (os.path.isfile), or undefined. */
async function firstFile(ctx: ModuleContext, paths: readonly string[]): Promise<string | undefined> {
  for (const path of paths) {
    if ((await ctx.platform.stat(path))?.type === 'file') return path;
  }
  return undefined;
}

async function runLogged(
  ctx: ModuleContext,
  ops: DistroOps,
  action: 'update' | 'upgrade' | 'install',
  pkgs: string[] = [],
): Promise<void> {
  const cmd = ops.packageCommand(action, pkgs);
  const r = await ctx.platform.run(cmd.argv, { env: cmd.env, allowFailure: true });
  if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
  if (r.code !== 0)
    throw new ModuleError('package_update_upgrade_install', `'${cmd.argv.join(' ')}' exited with code ${r.code}`);
}

export function createPackageUpdateUpgradeInstallModule(deps: PackageModuleDeps): Module {
  return configModule({
    name: 'package_update_upgrade_install',
    stage: 'final',
    frequency: 'once-per-instance',
    distros: 'all',
    activateBy: ['apt_update', 'package_update', 'apt_upgrade', 'package_upgrade', 'packages'],
    configKeys: {
      apt_update: 'bool',
      package_update: 'bool',
      package_upgrade: 'bool',
      apt_upgrade: 'bool',
      apt_reboot_if_required: 'bool',
      package_reboot_if_required: 'bool',
      // 25.1's install_packages logs an ERROR for a manager it does not know ({pip: …}), which its schema rejects.
      packages: new OwnParser(readPackages),
    },
    async run(ctx, cfg): Promise<void> {
      const update = cfg.apt_update === true || cfg.package_update === true;
      const upgrade = cfg.package_upgrade === true || cfg.apt_upgrade === true;
      const rebootIfRequired = cfg.apt_reboot_if_required === true || cfg.package_reboot_if_required === true;
      const packages = cfg.packages;
      const install = packages?.namesAny === true;
      if (!update && !upgrade && !install) return;
      const ops = await deps.distroOps(ctx);
      const errors: string[] = [];
      const attempt = async (what: string, fn: () => Promise<void>) => {
        try {
          await fn();
        } catch (err) {
          ctx.log.warn(`${what}: ${describeError(err)}`);
          errors.push(`${what}: ${describeError(err)}`);
        }
      };
      await attempt('Package update failed', () => updatePackageSources(ctx, 'package_update_upgrade_install'));
      if (upgrade) await attempt('Package upgrade failed', () => runLogged(ctx, ops, 'upgrade'));
      if (packages && install)
        await attempt(`Failed to install packages: ${packages.json}`, () => installByManager(ctx, ops, packages.list));
      const rebootMarker = await firstFile(ctx, REBOOT_MARKERS);
      if ((upgrade || install) && rebootIfRequired && rebootMarker) {
        await attempt('Requested reboot did not happen', async () => {
          ctx.log.warn(`Rebooting after upgrade or install per ${rebootMarker}`);
          await ctx.platform.run(REBOOT_COMMAND);
          let wait = 1000;
          const start = Date.now();
          for (let i = 0; i < 6; i++) {
            await deps.sleep(wait);
            wait *= 2;
            ctx.log.debug(`Rebooted, but still running after ${Math.round((Date.now() - start) / 1000)} seconds`);
          }
          throw new ModuleError(
            'package_update_upgrade_install',
            `Reboot did not happen after ${Math.round((Date.now() - start) / 1000)} seconds!`,
          );
        });
      }
      if (errors.length) {
        ctx.log.warn(`${errors.length} failed with exceptions, re-raising the last one`);
        throw new ModuleError('package_update_upgrade_install', errors[errors.length - 1] as string);
      }
    },
  });
}

export const packageUpdateUpgradeInstallModule: Module = createPackageUpdateUpgradeInstallModule({
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  distroOps: (ctx) => distroOpsFor(ctx.platform, ctx.distro),
});
