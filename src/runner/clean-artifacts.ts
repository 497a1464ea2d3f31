// `cloud-init clean`: removes instance state (and optionally logs, seed, generated configs) so an image can be
// captured.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import { describeError } from '../util/errors';
import type { Log } from '../util/log';
import type { CloudPaths } from './cloud-paths';

export type CleanConfigKind = 'ssh_config' | 'network' | 'datasource' | 'fstab';
export const CLEAN_CONFIG_KINDS: CleanConfigKind[] = ['ssh_config', 'network', 'datasource', 'fstab'];

/** Files cloud-init generates, by --configs kind; a trailing '*' matches by prefix in that folder. */
export const GENERATED_CONFIGS: Record<Exclude<CleanConfigKind, 'fstab'>, string[]> = {
  ssh_config: ['/etc/ssh/sshd_config.d/50-cloud-init.conf'],
  network: [
    '/etc/netplan/50-cloud-init.yaml',
    '/etc/network/interfaces.d/50-cloud-init',
    '/etc/network/interfaces.d/50-cloud-init.cfg',
    '/etc/systemd/network/10-cloud-init-*',
    '/etc/NetworkManager/conf.d/99-cloud-init.conf',
    '/etc/NetworkManager/conf.d/30-cloud-init-ip6-addr-gen-mode.conf',
    '/etc/NetworkManager/system-connections/cloud-init-*',
    '/etc/sysconfig/network-scripts/ifcfg-*',
  ],
  // What ds-identify (the generator) decided for this boot.
  datasource: ['/run/cloud-init/cloud.cfg', '/run/cloud-init/ds-identify.log'],
};

export interface CleanOptions {
  platform: Platform;
  paths: CloudPaths;
  log: Log;
  logs: boolean;
  seed: boolean;
  machineId: boolean;
  configs: CleanConfigKind[];
}

export interface CleanOutcome {
  removed: string[];
  errors: string[];
}

/**
 * The paths PATTERN names on PLATFORM, in name order (one of GENERATED_CONFIGS: a trailing '*' matches by prefix in its
 * folder).
 */
export async function expandGenerated(
  platform: Pick<Platform, 'exists' | 'listDir'>,
  pattern: string,
): Promise<string[]> {
  if (!pattern.endsWith('*')) return (await platform.exists(pattern)) ? [pattern] : [];
  const dir = posix.dirname(pattern);
  const prefix = posix.basename(pattern).slice(0, -1);
  const names = await platform.listDir(dir).catch(() => [] as string[]);
  return names
    .filter((n) => n.startsWith(prefix))
    .sort()
    .map((n) => posix.join(dir, n));
}

/** cloud-init's fstab entries carry `comment=cloudconfig`; those lines go, the rest stay. */
export function stripCloudFstabEntries(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/\bcomment=cloudconfig\b/.test(l))
    .join('\n');
}

export async function cleanArtifacts(o: CleanOptions): Promise<CleanOutcome> {
  const p = o.platform;
  const out: CleanOutcome = { removed: [], errors: [] };
  const rm = async (path: string, recursive = false): Promise<void> => {
    try {
      if (!(await p.exists(path)) && !(await isLink(p, path))) return;
      await p.remove(path, { recursive });
      out.removed.push(path);
    } catch (err) {
      out.errors.push(`Could not remove ${path}: ${describeError(err)}`);
    }
  };
  if (o.logs) for (const f of [o.paths.logFile, o.paths.outputLogFile, o.paths.eventLogFile]) await rm(f);
  for (const kind of o.configs) {
    if (kind === 'fstab') {
      const text = await p.readTextIfExists('/etc/fstab');
      if (text !== undefined && stripCloudFstabEntries(text) !== text) {
        await p.writeFile('/etc/fstab', stripCloudFstabEntries(text));
        out.removed.push('/etc/fstab (cloudconfig entries)');
      }
      continue;
    }
    for (const pattern of GENERATED_CONFIGS[kind]) for (const f of await expandGenerated(p, pattern)) await rm(f);
  }
  for (const name of await p.listDir(o.paths.cloudDir).catch(() => [] as string[])) {
    if (name === 'seed' && !o.seed) continue;
    await rm(posix.join(o.paths.cloudDir, name), true);
  }
  // /run/cloud-init stays, as with cloud-init 25.1's clean: the boot's own state, which a reboot's tmpfs empties.
  if (o.machineId) {
    // With systemd, 'uninitialized' makes the next boot a first boot that generates a new id; without, the file goes.
    const systemd = (await p.exists('/usr/lib/systemd/systemd')) || (await p.exists('/lib/systemd/systemd'));
    if (systemd) {
      await p.writeFile('/etc/machine-id', 'uninitialized\n', { mode: 0o444 });
      out.removed.push('/etc/machine-id (set to uninitialized)');
    } else await rm('/etc/machine-id');
  }
  return out;
}

async function isLink(p: Platform, path: string): Promise<boolean> {
  const parent = posix.dirname(path);
  const names = await p.listDir(parent).catch(() => [] as string[]);
  return names.includes(posix.basename(path));
}

/**
 * Runs /etc/cloud/clean.d executables in sorted order, as run-parts does; each failure is reported, none stops the
 * rest.
 */
export async function runCleanScripts(platform: Platform, log: Log, dir = '/etc/cloud/clean.d'): Promise<string[]> {
  const errors: string[] = [];
  const names = await platform.listDir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) continue;
    const path = posix.join(dir, name);
    // run-parts runs executable regular files only (Debian ships a README there).
    const st = await platform.stat(path);
    if (st && (st.type !== 'file' || (st.mode & 0o111) === 0)) continue;
    const r = await platform.run([path], { allowFailure: true });
    if (r.code !== 0) {
      const msg = `Failure during run-parts of ${dir}: ${name} exited with code ${r.code}${r.stderr ? `: ${r.stderr.trim()}` : ''}`;
      log.error(msg);
      errors.push(msg);
    }
  }
  return errors;
}
