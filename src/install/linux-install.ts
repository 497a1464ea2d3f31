// `kiln install` and `kiln uninstall` on Linux: the binary, its cloud-init names, the systemd units and the
// generator embedded at build time, and the links that enable the units; every effect through the Platform.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import { KilnError } from '../util/errors';
import { debianCloudInitPresence, dpkgDiversions } from './debian-cloud-init-package';
import { enableLinks } from './unit-install-section';

/** The unit sets `--units` chooses between: the four stages, or all stages in one process. */
export const UNIT_SETS = {
  four: ['cloud-init-local.service', 'cloud-init.service', 'cloud-config.service', 'cloud-final.service'],
  'all-stages': ['kiln-all-stages.service'],
} as const;
export type UnitSet = keyof typeof UNIT_SETS;

export const KILN_BINARY = '/usr/bin/kiln';
/** The names kiln answers to as cloud-init: symlinks to kiln, beside it. */
export const CLOUD_INIT_NAMES = ['/usr/bin/cloud-init', '/usr/bin/cloud-id'];
export const GENERATOR = 'cloud-init-generator';
/** Where `systemctl enable` makes its links. */
export const ENABLE_ROOT = '/etc/systemd/system';

/** Where the units and the generator go. */
export interface UnitLayout {
  units: string;
  generators: string;
}
/** On a system without Debian's cloud-init: the vendor folders, as a package would install them. */
export const VENDOR_LAYOUT: UnitLayout = { units: '/usr/lib/systemd/system', generators: '/usr/lib/systemd/system-generators' };
/**
 * With --replace: the administrator's folders, whose units and generators take precedence over same-named
 * ones in /usr/lib (and /lib), so the package's own files stay untouched.
 */
export const ADMIN_LAYOUT: UnitLayout = { units: '/etc/systemd/system', generators: '/etc/systemd/system-generators' };

/** Debian's cloud-init is installed and --replace was not given. */
export class InstallRefusedError extends KilnError {
  override readonly name = 'InstallRefusedError';
}

export interface LinuxInstallRequest {
  platform: Platform;
  /** File name → text, as build.mjs embeds them (units and generator). */
  files: Record<string, string>;
  /** The running binary's bytes, read only when they are written. */
  binary: () => Promise<Uint8Array>;
  units: UnitSet;
  enable: boolean;
  replace: boolean;
  /** Lines for the person running it. */
  say: (line: string) => void;
}

/** A live system (no --root): systemctl does the enabling and is told to reload. */
function isLive(platform: Platform): boolean {
  return platform.root === '/';
}

function unitFiles(files: Record<string, string>): string[] {
  return Object.keys(files).filter((f) => f !== GENERATOR).sort();
}

function requireFiles(files: Record<string, string>): void {
  const missing = [...UNIT_SETS.four, ...UNIT_SETS['all-stages'], GENERATOR].filter((f) => files[f] === undefined);
  if (missing.length) throw new KilnError(`this kiln binary carries no ${missing.join(', ')} (built without images/systemd?); cannot install`);
}

/** Each enable link of UNIT: its path under ENABLE_ROOT. */
function enableLinkPaths(unit: string, text: string): string[] {
  return enableLinks(text).map((l) => `${ENABLE_ROOT}/${l.target}.${l.folder}/${unit}`);
}

export async function installLinux(req: LinuxInstallRequest): Promise<void> {
  const { platform, files, say } = req;
  requireFiles(files);
  const debian = await debianCloudInitPresence(platform);
  if (debian && !req.replace) {
    throw new InstallRefusedError(`Debian's cloud-init is installed in ${platform.root} (${debian}); remove it (apt-get purge cloud-init) or give --replace to take over its names`);
  }
  const layout = debian ? ADMIN_LAYOUT : VENDOR_LAYOUT;
  if (debian) {
    say(`replacing Debian's cloud-init (${debian}): its files stay; ${CLOUD_INIT_NAMES.join(' and ')} are diverted (dpkg-divert) to kiln, and kiln's units in ${layout.units} take precedence over the package's`);
    const diverted = new Set((await dpkgDiversions(platform)).map((d) => d.from));
    for (const name of CLOUD_INIT_NAMES) {
      if (diverted.has(name) || !(await platform.exists(name)) || (await platform.readLink?.(name)) === 'kiln') continue;
      await platform.run(['dpkg-divert', '--local', '--rename', '--divert', `${name}.distrib`, '--add', name]);
    }
  }
  await platform.writeFile(KILN_BINARY, await req.binary(), { mode: 0o755 });
  for (const name of CLOUD_INIT_NAMES) await platform.symlink(posix.basename(KILN_BINARY), name);
  for (const unit of unitFiles(files)) await platform.writeFile(`${layout.units}/${unit}`, files[unit] as string, { mode: 0o644 });
  await platform.writeFile(`${layout.generators}/${GENERATOR}`, files[GENERATOR] as string, { mode: 0o755 });
  say(`installed ${KILN_BINARY} (also as ${CLOUD_INIT_NAMES.join(', ')}), ${unitFiles(files).length} units in ${layout.units}, ${layout.generators}/${GENERATOR}`);
  if (!req.enable) return;
  const units = [...UNIT_SETS[req.units]];
  if (isLive(platform)) {
    await platform.run(['systemctl', 'daemon-reload']);
    await platform.run(['systemctl', 'enable', ...units]);
  } else {
    for (const unit of units) {
      for (const link of enableLinkPaths(unit, files[unit] as string)) {
        const existing = (await platform.readLink?.(link)) ?? ((await platform.exists(link)) ? '(a file)' : undefined);
        if (existing !== undefined && existing !== `${layout.units}/${unit}`) {
          // The package's own link for the same unit name: it already enables the unit (systemd loads the
          // unit by name, so kiln's copy in /etc wins), and uninstall must find it as it was.
          say(`kept ${link} -> ${existing}: it enables ${unit} already`);
          continue;
        }
        await platform.symlink(`${layout.units}/${unit}`, link);
      }
    }
  }
  say(`enabled ${units.join(', ')}`);
}

export interface LinuxUninstallRequest {
  platform: Platform;
  files: Record<string, string>;
  say: (line: string) => void;
}

/**
 * Removes what installLinux wrote, and nothing else: the units and generator only where their text is kiln's,
 * the names only where they are links to kiln, the enable links only where they point at kiln's units; then
 * gives diverted names back to Debian's package.
 */
export async function uninstallLinux(req: LinuxUninstallRequest): Promise<void> {
  const { platform, files, say } = req;
  requireFiles(files);
  const allUnits = [...UNIT_SETS.four, ...UNIT_SETS['all-stages']];
  const removed: string[] = [];
  const remove = async (path: string) => {
    await platform.remove(path);
    removed.push(path);
  };
  // Kiln's files, found by their text: a same-named file with other content (the package's) is not kiln's.
  const ours: string[] = [];
  for (const layout of [VENDOR_LAYOUT, ADMIN_LAYOUT]) {
    for (const [name, text] of Object.entries(files)) {
      const path = `${name === GENERATOR ? layout.generators : layout.units}/${name}`;
      if ((await platform.readLink?.(path)) !== undefined) continue;
      if ((await platform.readTextIfExists(path)) !== text) continue;
      ours.push(path);
    }
  }
  // The links are found as install (or `systemctl enable`, on a live system) made them: pointing at kiln's
  // units. `systemctl disable` is not used: it would also take away the package's own links for the same
  // unit names after --replace, leaving Debian's cloud-init disabled.
  for (const layout of [VENDOR_LAYOUT, ADMIN_LAYOUT]) {
    for (const unit of allUnits) {
      for (const link of enableLinkPaths(unit, files[unit] as string)) {
        if ((await platform.readLink?.(link)) !== `${layout.units}/${unit}`) continue;
        // Its folder stays, as `systemctl disable` leaves it: it may have been there before.
        await remove(link);
      }
    }
  }
  for (const path of ours) await remove(path);
  for (const name of CLOUD_INIT_NAMES) {
    const target = await platform.readLink?.(name);
    if (target === 'kiln' || target === KILN_BINARY) await remove(name);
  }
  if ((await platform.stat?.(KILN_BINARY, { followLinks: false }))?.type === 'file') await remove(KILN_BINARY);
  for (const d of await dpkgDiversions(platform)) {
    if (!CLOUD_INIT_NAMES.includes(d.from) || d.to !== `${d.from}.distrib` || d.package !== ':') continue;
    if (await platform.exists(d.from)) {
      say(`kept the diversion of ${d.from}: something else is there now`);
      continue;
    }
    await platform.run(['dpkg-divert', '--local', '--rename', '--remove', d.from]);
    say(`gave ${d.from} back to Debian's cloud-init package`);
  }
  if (isLive(platform)) await platform.run(['systemctl', 'daemon-reload']);
  say(removed.length ? `removed ${removed.join(', ')}` : 'nothing of kiln was installed here');
}
