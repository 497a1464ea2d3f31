// `kiln install` and `kiln uninstall` on Linux: the binary, its cloud-init names, the systemd units, the
// generator and the hotplug hook embedded at build time, and the links that enable the units; every effect
// through the Platform.
import { posix } from 'node:path';
import type { InstallFile } from 'kiln:target';
import type { Platform } from '../platform/platform';
import { KilnError } from '../util/errors';
import { debianCloudInitPresence, dpkgDiversions } from './debian-cloud-init-package';
import { enableLinks } from './unit-install-section';

/**
 * The units enabled, as Debian 13's cloud-init 25.1 package enables them: cloud-init-main.service runs every stage in
 * one process, and the four stage units (cloud-init-local, cloud-init-network, cloud-config, cloud-final) keep each
 * stage's place in the boot; the hotplug socket beside them. cloud-init 25.1 has no unit set with a process per stage.
 */
export const ENABLED_UNITS = [
  'cloud-init-main.service',
  'cloud-init-local.service',
  'cloud-init-network.service',
  'cloud-config.service',
  'cloud-final.service',
  'cloud-init-hotplugd.socket',
] as const;
/** The four stage units, in boot order. */
export const STAGE_UNITS = [
  'cloud-init-local.service',
  'cloud-init-network.service',
  'cloud-config.service',
  'cloud-final.service',
] as const;
/**
 * Units an older kiln installed (cloud-init 22.4's network stage unit, kiln's own one-process unit): an install
 * takes them out where their text says they are kiln's, so that no stage runs twice.
 */
export const RETIRED_UNITS = ['cloud-init.service', 'kiln-all-stages.service'] as const;

export const KILN_BINARY = '/usr/bin/kiln';
/** The names kiln answers to as cloud-init: symlinks to kiln, beside it. */
export const CLOUD_INIT_NAMES = ['/usr/bin/cloud-init', '/usr/bin/cloud-id'];
export const GENERATOR = 'cloud-init-generator';
/** The script udev's hotplug rule runs (src/sources/hotplug-udev-rule.ts writes the rule). */
export const HOOK_HOTPLUG = 'hook-hotplug';
/**
 * Where hook-hotplug goes: the folder the install_hotplug module's rule names, which is /usr/libexec/cloud-init
 * where that exists and /usr/lib/cloud-init (Debian's) otherwise; the first is tried first, as the rule does.
 */
export const HOOK_HOTPLUG_DIRS = ['/usr/libexec/cloud-init', '/usr/lib/cloud-init'] as const;
/** An older kiln's switch for its one-process unit (`install --units all-stages`); an install removes it. */
export const SINGLE_PROCESS_MARKER = '/etc/cloud/kiln-single-process';
export const SINGLE_PROCESS_MARKER_TEXT =
  '# Written by `kiln install --units all-stages`: cloud-init-generator enables kiln-all-stages.service, not cloud-init.target.\n';
/** Where `systemctl enable` makes its links. */
export const ENABLE_ROOT = '/etc/systemd/system';

/** Where the units and the generator go. */
export interface UnitLayout {
  units: string;
  generators: string;
}
/** On a system without Debian's cloud-init: the vendor folders, as a package would install them. */
export const VENDOR_LAYOUT: UnitLayout = {
  units: '/usr/lib/systemd/system',
  generators: '/usr/lib/systemd/system-generators',
};
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
  /** File name → text and mode, as build.mjs embeds them (units, generator, hook-hotplug). */
  files: Record<string, InstallFile>;
  /** The running binary's bytes, read only when they are written. */
  binary: () => Promise<Uint8Array>;
  enable: boolean;
  replace: boolean;
  /** Lines for the person running it. */
  say: (line: string) => void;
}

/** A live system (no --root): systemctl does the enabling and is told to reload. */
function isLive(platform: Platform): boolean {
  return platform.root === '/';
}

function unitFiles(files: Record<string, InstallFile>): string[] {
  return Object.keys(files)
    .filter((f) => f !== GENERATOR && f !== HOOK_HOTPLUG)
    .sort();
}

function requireFiles(files: Record<string, InstallFile>): void {
  const missing = [
    ...ENABLED_UNITS,
    'cloud-init-hotplugd.service',
    'cloud-init.target',
    'cloud-config.target',
    GENERATOR,
    HOOK_HOTPLUG,
  ].filter((f) => files[f] === undefined);
  if (missing.length)
    throw new KilnError(
      `this kiln binary carries no ${missing.join(', ')} (built without images/systemd?); cannot install`,
    );
}

/** The text of an embedded file that requireFiles found. */
function textOf(files: Record<string, InstallFile>, name: string): string {
  return (files[name] as InstallFile).text;
}

/** The folder hook-hotplug goes to in PLATFORM's root: the one the hotplug rule will name. */
async function hookHotplugDir(platform: Platform): Promise<string> {
  for (const dir of HOOK_HOTPLUG_DIRS.slice(0, -1)) if (await platform.exists(dir)) return dir;
  return HOOK_HOTPLUG_DIRS[HOOK_HOTPLUG_DIRS.length - 1] as string;
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
    throw new InstallRefusedError(
      `Debian's cloud-init is installed in ${platform.root} (${debian}); remove it (apt-get purge cloud-init) or give --replace to take over its names`,
    );
  }
  const layout = debian ? ADMIN_LAYOUT : VENDOR_LAYOUT;
  if (debian) {
    say(
      `replacing Debian's cloud-init (${debian}): its files stay; ${CLOUD_INIT_NAMES.join(' and ')} are diverted (dpkg-divert) to kiln, and kiln's units in ${layout.units} take precedence over the package's`,
    );
    const diverted = new Set((await dpkgDiversions(platform)).map((d) => d.from));
    for (const name of CLOUD_INIT_NAMES) {
      if (diverted.has(name) || !(await platform.exists(name)) || (await platform.readLink?.(name)) === 'kiln')
        continue;
      await platform.run(['dpkg-divert', '--local', '--rename', '--divert', `${name}.distrib`, '--add', name]);
    }
  }
  await platform.writeFile(KILN_BINARY, await req.binary(), { mode: 0o755 });
  for (const name of CLOUD_INIT_NAMES) await platform.symlink(posix.basename(KILN_BINARY), name);
  const write = (path: string, name: string) =>
    platform.writeFile(path, textOf(files, name), { mode: (files[name] as InstallFile).mode });
  for (const unit of unitFiles(files)) await write(`${layout.units}/${unit}`, unit);
  await write(`${layout.generators}/${GENERATOR}`, GENERATOR);
  const hook = `${await hookHotplugDir(platform)}/${HOOK_HOTPLUG}`;
  const existingHook = await platform.readTextIfExists(hook);
  if (debian && existingHook !== undefined && existingHook !== textOf(files, HOOK_HOTPLUG)) {
    // Debian's package's own (--replace): it writes the same line to the same FIFO, and stays dpkg's. Without
    // the package, a hook there (an older kiln's) is replaced, as the units are.
    say(`kept ${hook}: it is not kiln's (Debian's cloud-init package ships one that does the same)`);
  } else {
    await write(hook, HOOK_HOTPLUG);
  }
  say(
    `installed ${KILN_BINARY} (also as ${CLOUD_INIT_NAMES.join(', ')}), ${unitFiles(files).length} units in ${layout.units}, ${layout.generators}/${GENERATOR}, ${hook}`,
  );
  await removeRetired(platform, layout, say);
  if (!(await platform.exists('/usr/bin/nc')) && !(await platform.exists('/bin/nc'))) {
    say(
      'warning: no nc in this root: the stage units start their stage with it (install netcat-openbsd, as the kiln package depends on it)',
    );
  }
  if (debian) await maskPackageNetworkStage(platform, say);
  if (!req.enable) return;
  const units = [...ENABLED_UNITS];
  if (isLive(platform)) {
    await platform.run(['systemctl', 'daemon-reload']);
    await platform.run(['systemctl', 'enable', ...units]);
  } else {
    for (const unit of units) {
      for (const link of enableLinkPaths(unit, textOf(files, unit))) {
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

/** Whether TEXT is a unit an older kiln wrote (its first line says so). */
function isKilnUnitText(text: string | undefined): boolean {
  return text !== undefined && /^# kiln\b/.test(text);
}

/**
 * Takes out what an older kiln installed that this one does not: the retired units (with the enable links that
 * point at them) where their text is kiln's, and kiln's single-process marker.
 */
async function removeRetired(platform: Platform, layout: UnitLayout, say: (line: string) => void): Promise<void> {
  for (const unit of RETIRED_UNITS) {
    const path = `${layout.units}/${unit}`;
    const text = await platform.readTextIfExists(path);
    if ((await platform.readLink?.(path)) !== undefined || !isKilnUnitText(text)) continue;
    for (const link of enableLinkPaths(unit, text as string))
      if ((await platform.readLink?.(link)) === path) await platform.remove(link);
    await platform.remove(path);
    say(`removed ${path}: an older kiln's unit (cloud-init 25.1 runs the stages from cloud-init-main.service)`);
  }
  if ((await platform.readTextIfExists(SINGLE_PROCESS_MARKER)) === SINGLE_PROCESS_MARKER_TEXT) {
    await platform.remove(SINGLE_PROCESS_MARKER);
    say(`removed ${SINGLE_PROCESS_MARKER}: an older kiln's switch, which the generator no longer reads`);
  }
}

/** Where the mask of an older cloud-init package's network stage unit goes (`systemctl mask` makes the same link). */
export const NETWORK_STAGE_MASK = `${ENABLE_ROOT}/cloud-init.service`;

/**
 * --replace over a cloud-init older than 24.3 (Debian 12's 22.4): its cloud-init.service would run `cloud-init init`
 * (kiln, by the diverted name) beside cloud-init-main.service's network stage. Masked while kiln is installed.
 */
async function maskPackageNetworkStage(platform: Platform, say: (line: string) => void): Promise<void> {
  if (
    !(await packageNetworkStageUnit(platform)) ||
    (await platform.exists(NETWORK_STAGE_MASK)) ||
    (await platform.readLink?.(NETWORK_STAGE_MASK)) !== undefined
  )
    return;
  await platform.symlink('/dev/null', NETWORK_STAGE_MASK);
  say(`masked cloud-init.service (the package's network stage): cloud-init-main.service runs every stage`);
}

async function packageNetworkStageUnit(platform: Platform): Promise<boolean> {
  for (const dir of ['/usr/lib/systemd/system', '/lib/systemd/system'])
    if (await platform.exists(`${dir}/cloud-init.service`)) return true;
  return false;
}

export interface LinuxUninstallRequest {
  platform: Platform;
  files: Record<string, InstallFile>;
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
  const allUnits = [...ENABLED_UNITS];
  const removed: string[] = [];
  const remove = async (path: string) => {
    await platform.remove(path);
    removed.push(path);
  };
  // Kiln's files, found by their text: a same-named file with other content (the package's) is not kiln's.
  const candidates: Array<[string, string]> = [];
  for (const layout of [VENDOR_LAYOUT, ADMIN_LAYOUT]) {
    for (const name of Object.keys(files))
      if (name !== HOOK_HOTPLUG)
        candidates.push([`${name === GENERATOR ? layout.generators : layout.units}/${name}`, textOf(files, name)]);
  }
  for (const dir of HOOK_HOTPLUG_DIRS) candidates.push([`${dir}/${HOOK_HOTPLUG}`, textOf(files, HOOK_HOTPLUG)]);
  candidates.push([SINGLE_PROCESS_MARKER, SINGLE_PROCESS_MARKER_TEXT]);
  const ours: string[] = [];
  for (const [path, text] of candidates) {
    if ((await platform.readLink?.(path)) !== undefined) continue;
    if ((await platform.readTextIfExists(path)) !== text) continue;
    ours.push(path);
  }
  // The links are found as install (or `systemctl enable`, on a live system) made them: pointing at kiln's
  // units. `systemctl disable` is not used: it would also take away the package's own links for the same
  // unit names after --replace, leaving Debian's cloud-init disabled.
  for (const layout of [VENDOR_LAYOUT, ADMIN_LAYOUT]) {
    for (const unit of allUnits) {
      for (const link of enableLinkPaths(unit, textOf(files, unit))) {
        if ((await platform.readLink?.(link)) !== `${layout.units}/${unit}`) continue;
        // Its folder stays, as `systemctl disable` leaves it: it may have been there before.
        await remove(link);
      }
    }
  }
  for (const path of ours) await remove(path);
  if ((await platform.readLink?.(NETWORK_STAGE_MASK)) === '/dev/null' && (await packageNetworkStageUnit(platform)))
    await remove(NETWORK_STAGE_MASK);
  for (const name of CLOUD_INIT_NAMES) {
    const target = await platform.readLink?.(name);
    if (target === 'kiln' || target === KILN_BINARY) await remove(name);
  }
  if ((await platform.stat(KILN_BINARY, { followLinks: false }))?.type === 'file') await remove(KILN_BINARY);
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
