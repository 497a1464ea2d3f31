// Loads the koffi addon embedded in Windows builds: written once to a private cache folder, then dlopen'ed.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BuildFacts } from '../../build-info';
import { PlatformError } from '../../util/errors';
import { dlopenKoffi, embeddedKoffiAddon, type Koffi } from '../../util/koffi-addon';

/** Where the addon is cached: per user, per koffi version and content hash, so upgrades never mix. */
export function koffiCachePath(addon: NonNullable<BuildFacts['koffiAddon']>, env: NodeJS.ProcessEnv): string {
  const base = env.LOCALAPPDATA ?? env.APPDATA ?? tmpdir();
  return join(base, 'kiln', 'cache', `koffi-${addon.version}-${addon.sha256.slice(0, 16)}`, 'koffi.node');
}

/**
 * Returns koffi, loading it on first use. Synchronous because the Win32 bindings are declared at module
 * level of their callers; the write happens once per version and costs a few milliseconds.
 */
export function loadKoffi(facts: BuildFacts, env: NodeJS.ProcessEnv = process.env): Koffi {
  const addon = facts.koffiAddon;
  if (!addon)
    throw new PlatformError(
      `this build (${facts.target.name}) carries no koffi addon; Win32 calls need a Windows build`,
    );
  const path = koffiCachePath(addon, env);
  if (!existsSync(path) || createHash('sha256').update(readFileSync(path)).digest('hex') !== addon.sha256) {
    mkdirSync(join(path, '..'), { recursive: true });
    const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temp, embeddedKoffiAddon(addon));
    renameSync(temp, path);
  }
  return dlopenKoffi(path);
}
