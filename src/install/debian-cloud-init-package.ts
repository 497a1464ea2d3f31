// Whether Debian's own cloud-init (the Python one) is installed in the target, which `kiln install` must not
// silently replace.
import type { Platform } from '../platform/platform';

export const DPKG_STATUS = '/var/lib/dpkg/status';

/** Why the target holds Debian's cloud-init, or undefined when it does not. */
export async function debianCloudInitPresence(platform: Platform): Promise<string | undefined> {
  const status = await platform.readTextIfExists(DPKG_STATUS);
  if (status !== undefined && dpkgListsInstalled(status, 'cloud-init'))
    return `dpkg lists the cloud-init package as installed (${DPKG_STATUS})`;
  const script = await platform.readTextIfExists('/usr/bin/cloud-init').catch(() => undefined);
  if (script !== undefined && /^#!.*python/.test(script.split('\n', 1)[0] ?? ''))
    return '/usr/bin/cloud-init is a Python script';
  return undefined;
}

/** True when dpkg's status file has PACKAGE with a Status whose state is `installed`. */
export function dpkgListsInstalled(status: string, pkg: string): boolean {
  for (const stanza of status.split(/\n\s*\n/)) {
    if (!new RegExp(`^Package:\\s*${pkg.replace(/[.+]/g, '\\$&')}\\s*$`, 'm').test(stanza)) continue;
    const state = /^Status:\s*(.*)$/m.exec(stanza)?.[1]?.trim().split(/\s+/);
    if (state?.[2] === 'installed') return true;
  }
  return false;
}

/** A line of /var/lib/dpkg/diversions: FROM is diverted to TO by PACKAGE (':' for a local diversion). */
export interface Diversion {
  from: string;
  to: string;
  package: string;
}

export const DPKG_DIVERSIONS = '/var/lib/dpkg/diversions';

/** The diversions dpkg knows in the target (the file holds them as groups of three lines). */
export async function dpkgDiversions(platform: Platform): Promise<Diversion[]> {
  const lines = ((await platform.readTextIfExists(DPKG_DIVERSIONS)) ?? '').split('\n');
  const out: Diversion[] = [];
  for (let i = 0; i + 2 < lines.length && lines[i]; i += 3)
    out.push({ from: lines[i] as string, to: lines[i + 1] ?? '', package: lines[i + 2] ?? '' });
  return out;
}
