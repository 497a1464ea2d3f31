// Loads the koffi addon a Linux build carries, for the libc calls Node has no API for (posix_spawn).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildFacts } from '../../build-info';
import { describeError, PlatformError } from '../../util/errors';
import { dlopenKoffi, embeddedKoffiAddon, type Koffi } from '../../util/koffi-addon';

/**
 * Where the addon may be written to be loaded: /run first, a tmpfs systemd mounts without noexec (but an
 * initramfs-tools boot mounts it noexec, and systemd keeps that), then the temporary folder (often mounted noexec on
 * hardened images, and emptied by systemd-tmpfiles-setup.service early in boot, which cloud-init-main.service may
 * run beside), then /var/tmp, on the root file system and left alone at boot.
 */
export function addonFolders(): string[] {
  return [...new Set(['/run', tmpdir(), '/var/tmp'])];
}

/**
 * koffi from the binary's asset: written to a fresh private folder (mode 0700, so nobody can swap the file
 * before it is loaded), loaded, and removed again, which a loaded library survives. Nothing is cached across
 * boots: the write costs well under a millisecond. Code run without the asset (the tests' bundles) takes the
 * addon file named by KILN_KOFFI_ADDON, if any.
 */
export function loadLinuxKoffi(facts: BuildFacts, env: NodeJS.ProcessEnv): Koffi | undefined {
  const addon = facts.koffiAddon;
  if (!addon) return env.KILN_KOFFI_ADDON ? dlopenKoffi(env.KILN_KOFFI_ADDON) : undefined;
  return loadKoffiFromBytes(embeddedKoffiAddon(addon), addonFolders());
}

/** Writes BYTES (koffi's addon) to the first of FOLDERS it can be loaded from, loads it and removes the file. */
export function loadKoffiFromBytes(bytes: Uint8Array, folders: string[]): Koffi {
  const failures: string[] = [];
  for (const folder of folders) {
    let dir: string;
    try {
      dir = mkdtempSync(join(folder, 'kiln-koffi-'));
    } catch (err) {
      failures.push(describeError(err));
      continue;
    }
    try {
      const path = join(dir, 'koffi.node');
      writeFileSync(path, bytes, { mode: 0o600 });
      return dlopenKoffi(path);
    } catch (err) {
      failures.push(describeError(err));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  throw new PlatformError(`cannot load koffi's addon from ${folders.join(' or ')}: ${failures.join('; ')}`);
}
