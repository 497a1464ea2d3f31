// Loads the koffi addon a Linux build carries, for the libc calls Node has no API for (posix_spawn).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildFacts } from '../../build-info';
import { PlatformError } from '../../util/errors';
import { dlopenKoffi, embeddedKoffiAddon, type Koffi } from '../../util/koffi-addon';

/**
 * koffi from the binary's asset: written to a fresh private folder (mode 0700, so nobody can swap the file
 * before it is loaded), loaded, and removed again, which a loaded library survives. Nothing is cached across
 * boots: /tmp may be shared and the write costs well under a millisecond. Code run without the asset (the
 * tests' bundles) takes the addon file named by KILN_KOFFI_ADDON, if any.
 */
export function loadLinuxKoffi(facts: BuildFacts, env: NodeJS.ProcessEnv): Koffi | undefined {
  const addon = facts.koffiAddon;
  if (!addon) return env.KILN_KOFFI_ADDON ? dlopenKoffi(env.KILN_KOFFI_ADDON) : undefined;
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), 'kiln-koffi-'));
  } catch (err) {
    throw new PlatformError(`cannot make a folder for koffi's addon in ${tmpdir()}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const path = join(dir, 'koffi.node');
    writeFileSync(path, embeddedKoffiAddon(addon), { mode: 0o600 });
    return dlopenKoffi(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
