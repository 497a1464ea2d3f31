// Will the image run cloud-init (kiln) at its first boot: the binary, the generator, cloud-init-main.service and the
// stage units enabled.
import { posix } from 'node:path';
import { CLOUD_INIT_NAMES, ENABLE_ROOT, ENABLED_UNITS, GENERATOR } from '../install/linux-install';
import { enableLinks } from '../install/unit-install-section';
import type { Finding, ImageFiles } from './finding';

/** Where systemd looks for units and generators, in its order of precedence. */
const UNIT_DIRS = ['/etc/systemd/system', '/usr/lib/systemd/system', '/lib/systemd/system'];
const GENERATOR_DIRS = [
  '/etc/systemd/system-generators',
  '/usr/lib/systemd/system-generators',
  '/lib/systemd/system-generators',
];
/**
 * cloud-init-main.service and the four stage units it waits for (not the hotplug socket): what makes a boot run
 * cloud-init.
 */
const BOOT_UNITS = ENABLED_UNITS.filter((u) => u.endsWith('.service'));

async function unitText(files: ImageFiles, unit: string): Promise<string | undefined> {
  for (const dir of UNIT_DIRS) {
    const text = await files.readTextIfExists(posix.join(dir, unit));
    if (text !== undefined) return text;
  }
  return undefined;
}

/**
 * Whether UNIT is installed and linked into every target its [Install] section names, as `systemctl enable` leaves it.
 */
async function enabled(files: ImageFiles, unit: string): Promise<boolean> {
  const text = await unitText(files, unit);
  if (text === undefined) return false;
  const links = enableLinks(text);
  if (links.length === 0) return false;
  for (const l of links) if (!(await files.exists(`${ENABLE_ROOT}/${l.target}.${l.folder}/${unit}`))) return false;
  return true;
}

export async function checkBootUnits(files: ImageFiles, disabledFile: string): Promise<Finding[]> {
  const out: Finding[] = [];
  const binary = CLOUD_INIT_NAMES[0] as string;
  if (!(await files.exists(binary))) {
    out.push({
      check: 'boot-units',
      severity: 'error',
      path: binary,
      message: `${binary} is missing: nothing runs the boot stages`,
      fix: 'kiln install (or install the kiln .deb)',
    });
  }
  const generator = await firstPresent(
    files,
    GENERATOR_DIRS.map((d) => posix.join(d, GENERATOR)),
  );
  if (generator === undefined) {
    out.push({
      check: 'boot-units',
      severity: 'error',
      path: posix.join(GENERATOR_DIRS[1] as string, GENERATOR),
      message: `no ${GENERATOR}: systemd will not pull cloud-init.target into the boot`,
      fix: 'kiln install',
    });
  } else if ((((await files.stat(generator))?.mode ?? 0) & 0o111) === 0) {
    out.push({
      check: 'boot-units',
      severity: 'error',
      path: generator,
      message: `${generator} is not executable: systemd skips it`,
      fix: `chmod 755 ${generator}`,
    });
  }
  const on = await Promise.all(BOOT_UNITS.map((u) => enabled(files, u)));
  if (!on.every(Boolean)) {
    const missing = BOOT_UNITS.filter((_, i) => !on[i]);
    out.push({
      check: 'boot-units',
      severity: 'error',
      path: ENABLE_ROOT,
      message: `not enabled: ${missing.join(', ')}: the first boot would skip ${missing.includes('cloud-init-main.service') ? 'every stage (cloud-init-main.service runs them all)' : 'those stages (cloud-init-main.service waits for their units)'}`,
      fix: `systemctl enable ${missing.join(' ')}`,
    });
  }
  if (await files.exists(disabledFile)) {
    out.push({
      check: 'boot-units',
      severity: 'error',
      path: disabledFile,
      message: `${disabledFile} exists: cloud-init will not run at all`,
      fix: `rm ${disabledFile}`,
    });
  }
  return out;
}

async function firstPresent(files: ImageFiles, paths: string[]): Promise<string | undefined> {
  for (const p of paths) if (await files.exists(p)) return p;
  return undefined;
}
