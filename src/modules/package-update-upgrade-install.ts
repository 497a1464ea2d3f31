// cc_package_update_upgrade_install: package index update, upgrade, installs through the distro's package manager,
// reboot if required.
import { distroOpsFor } from '../platform/linux/distro/detect-distro';
import type { DistroOps } from '../platform/linux/distro/distro';
import { pyRepr, strRepr } from '../config/schema/python-repr';
import { describeError } from '../util/errors';
import { pyStr } from '../util/python-str';
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
  /** The list as get_cfg_option_list gives it, as Python prints it in the failure message. */
  readonly repr: string;
  /** Whether it names a package at all (a plain entry, or an item of a manager's list): the module has work. */
  readonly namesAny: boolean;
  readonly list: PackageList;
}

/** packages as get_cfg_option_list reads it: null is none, a list as it is, anything else str() of it. */
function readPackages(value: unknown): PackagesSetting {
  const listed: readonly unknown[] = Array.isArray(value)
    ? value
    : value === null
      ? []
      : [typeof value === 'string' ? value : isRecord(value) ? pyRepr(value) : pyStr(value)];
  return {
    repr: pyRepr(listed),
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

/** A package as a Python set of them prints it: 'name', or the (name, version) tuple. */
function specRepr(spec: PackageSpec): string {
  return typeof spec === 'string' ? strRepr(spec) : `(${strRepr(spec[0])}, ${strRepr(spec[1])})`;
}

const FAILED_TEXT = (what: string) =>
  `Failed to install the following packages: ${what}. See associated package manager logs for more details.`;

/** Snap's install_packages: one `snap install` per package; returns the ones that failed, as name=version. */
async function snapInstall(ctx: ModuleContext, specs: readonly PackageSpec[]): Promise<string[]> {
  const failed: string[] = [];
  for (const spec of specs) {
    const r = await ctx.platform.run(snapInstallArgv(spec), { allowFailure: true });
    if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0) {
      failed.push(specText(spec, '='));
      ctx.log.info(`Failed to 'snap install ${specText(spec, '=')}'!`);
    }
  }
  return failed;
}

/**
 * 25.1's Apt.install_packages: the index refresh (once per instance, its failure escapes), then `apt-cache pkgnames`;
 * a name it does not list (a target release, version, trailing - or ^ stripped) is left out and returned, the rest
 * go to one `apt-get install`, whose failure escapes. As 25.1, a [name, version] whose name is missing is still
 * passed to apt-get (only the bare name is compared) and still returned.
 *
 * A dry run answers `apt-cache pkgnames` with nothing; apt always lists at least itself, so an empty answer leaves
 * every name in.
 */
async function aptInstall(ctx: ModuleContext, ops: DistroOps, specs: readonly PackageSpec[]): Promise<string[]> {
  await updatePackageSources(ctx, 'package_update_upgrade_install');
  const pkglist = specs.map((s) => specText(s, '='));
  const listed = (await ctx.platform.run(['apt-cache', 'pkgnames'])).stdout.split('\n').filter(Boolean);
  const known = new Set(listed);
  const unavailable = pkglist
    .map((p) => p.split('=')[0] as string)
    .filter((p) => listed.length > 0 && !known.has((p.split(/\/|=/)[0] as string).replace(/[-^]+$/, '')));
  if (unavailable.length > 0)
    ctx.log.debug(
      `The following packages were not found by APT so APT will not attempt to install them: ${pyRepr(unavailable)}`,
    );
  const toInstall = pkglist.filter((p) => !unavailable.includes(p));
  if (toInstall.length > 0) await runLogged(ctx, ops, 'install', toInstall);
  return unavailable;
}

/**
 * Newer cloud-init's distro.install_packages. On the Debian family each of the distro's managers in turn (apt, then
 * on Ubuntu snap) takes its own entries and the plain ones the one before could not install (apt: the names it does
 * not know); a failing `apt-get install` escapes, so snap is not tried. Elsewhere the family's own install takes the
 * plain entries, its failure escaping. A manager the distro does not list installs its entries last. Throws naming
 * every package that ended up failed.
 */
async function installByManager(ctx: ModuleContext, ops: DistroOps, split: PackageList): Promise<void> {
  checkPackageList(ctx, split);
  const managers = distroManagers(ctx);
  const join = versionJoin(ctx.distro.family);
  const failed = new Map<string, PackageSpec>();
  const note = (specs: readonly PackageSpec[]) => {
    for (const s of specs) failed.set(specKey(s), s);
  };
  if (managers.length === 0 && split.generic.length > 0) {
    // install_packages refreshes first on the apk and pacman families.
    if (!['redhat', 'suse'].includes(ctx.distro.family))
      await updatePackageSources(ctx, 'package_update_upgrade_install');
    await runLogged(
      ctx,
      ops,
      'install',
      split.generic.map((s) => specText(s, join)),
    );
  }
  let generic: PackageSpec[] = union(split.generic, []);
  for (const manager of managers) {
    const own = split.byManager.get(manager) ?? [];
    // A set in 25.1 (no order): the plain entries first for apt, as written; snap's own first.
    const toTry = manager === 'apt' ? union(generic, own) : union(own, generic);
    for (const s of toTry) failed.delete(specKey(s));
    if (manager === 'snap' && !(await snapAvailable(ctx))) {
      ctx.log.debug("Package manager 'snap' not available");
      note(toTry);
      continue;
    }
    if (toTry.length === 0) continue;
    const left = manager === 'apt' ? await aptInstall(ctx, ops, toTry) : await snapInstall(ctx, toTry);
    note(left);
    if (left.length > 0) ctx.log.info(FAILED_TEXT(pyRepr(left)));
    const ownKeys = new Set(own.map(specKey));
    generic = left.filter((s) => !ownKeys.has(specKey(s)));
  }
  const snapOwn = split.byManager.get('snap') ?? [];
  if (!managers.includes('snap') && snapOwn.length > 0) note(await snapInstall(ctx, snapOwn));
  const aptElsewhere = managers.includes('apt') ? [] : (split.byManager.get('apt') ?? []);
  if (aptElsewhere.length > 0) {
    ctx.log.warn(
      `apt is not the package manager of ${ctx.distro.name}; not installing ${aptElsewhere.map((s) => specText(s, '=')).join(', ')}`,
    );
    note(aptElsewhere);
  }
  if (failed.size > 0)
    throw Object.assign(
      new ModuleError(
        'package_update_upgrade_install',
        FAILED_TEXT(`{${[...failed.values()].map(specRepr).join(', ')}}`),
      ),
      { pythonName: 'PackageInstallerError' },
    );
}

async function snapAvailable(ctx: ModuleContext): Promise<boolean> {
  for (const p of SNAP_PATHS) if (await ctx.platform.exists(p)) return true;
  return false;
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
      const errors: unknown[] = [];
      // util.logexc: the message at WARNING; the exception is kept and the last one is re-raised at the end.
      const attempt = async (what: string, fn: () => Promise<void>) => {
        try {
          await fn();
        } catch (err) {
          ctx.log.warn(what);
          ctx.log.debug(describeError(err));
          errors.push(err);
        }
      };
      if (update || upgrade) {
        if (ctx.distro.family === 'debian') {
          // The Debian family's update_package_sources logs a manager's failure and goes on.
          try {
            await updatePackageSources(ctx, 'package_update_upgrade_install');
          } catch (err) {
            ctx.recoverable('ERROR', `Failed to update package using apt: ${describeError(err)}`);
          }
        } else
          await attempt('Package update failed', () => updatePackageSources(ctx, 'package_update_upgrade_install'));
      }
      if (upgrade) await attempt('Package upgrade failed', () => runLogged(ctx, ops, 'upgrade'));
      if (packages && install)
        await attempt(`Failure when attempting to install packages: ${packages.repr}`, () =>
          installByManager(ctx, ops, packages.list),
        );
      const rebootMarker = await firstFile(ctx, REBOOT_MARKERS);
      if ((upgrade || install) && rebootIfRequired && rebootMarker) {
        await attempt('Requested reboot did not happen!', async () => {
          ctx.log.info(`***WARNING*** Rebooting after upgrade or install per ${rebootMarker}`);
          await ctx.platform.run(REBOOT_COMMAND);
          let wait = 1000;
          const start = Date.now();
          for (let i = 0; i < 6; i++) {
            await deps.sleep(wait);
            wait *= 2;
            ctx.log.debug(`Rebooted, but still running after ${Math.trunc((Date.now() - start) / 1000)} seconds`);
          }
          throw Object.assign(
            new ModuleError(
              'package_update_upgrade_install',
              `Reboot did not happen after ${Math.trunc((Date.now() - start) / 1000)} seconds!`,
            ),
            { pythonName: 'RuntimeError' },
          );
        });
      }
      if (errors.length) {
        ctx.log.warn(`${errors.length} failed with exceptions, re-raising the last one`);
        throw errors[errors.length - 1];
      }
    },
  });
}

export const packageUpdateUpgradeInstallModule: Module = createPackageUpdateUpgradeInstallModule({
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  distroOps: (ctx) => distroOpsFor(ctx.platform, ctx.distro),
});
