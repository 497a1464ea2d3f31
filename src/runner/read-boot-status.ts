// Reads everything `cloud-init status` needs from the target: status.json, result.json, the disable switches, the
// generator's marks.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import type { ConfigMap } from '../config/parse-yaml-config';
import { computeBootStatusWithSystemd, type BootStatus, type BootStatusCode } from './boot-status';
import { loadRunConfig, readKernelCmdline, type RunConfig } from './run-config';
import { systemdFailed } from './systemd-failed';

/**
 * cloud-init's get_bootstatus: the code and the sentence that explains it. The kernel switch and the marker file
 * come first whatever the init system, because kiln's stages obey them everywhere (cloud-init only reports them
 * under systemd, where its generator enforces them); then the generator's marks; then sysvinit or, under systemd
 * with no mark yet, 'unknown'.
 */
async function bootStatusOf(platform: Platform, rc: RunConfig): Promise<{ code: BootStatusCode; reason: string }> {
  if (rc.kernel.enabled)
    return {
      code: 'enabled-by-kernel-command-line',
      reason: 'Cloud-init enabled by kernel command line cloud-init=enabled',
    };
  if (rc.disabledBy === 'disabled-by-marker-file')
    return { code: 'disabled-by-marker-file', reason: `Cloud-init disabled by ${rc.paths.disabledFile}` };
  if (rc.kernel.disabled)
    return {
      code: 'disabled-by-kernel-command-line',
      reason: 'Cloud-init disabled by kernel parameter cloud-init=disabled',
    };
  // The generator leaves /run/cloud-init/disabled when it found no datasource and did not start kiln.
  if (await platform.exists(posix.join(rc.paths.runDir, 'disabled')))
    return { code: 'disabled-by-generator', reason: 'Cloud-init disabled by cloud-init-generator' };
  if (await platform.exists(posix.join(rc.paths.runDir, 'enabled')))
    return { code: 'enabled-by-generator', reason: 'Cloud-init enabled by systemd cloud-init-generator' };
  // cloud-init's uses_systemd(): systemd creates this directory when it boots.
  if (await platform.exists('/run/systemd/system'))
    return { code: 'unknown', reason: 'Systemd generator may not have run yet.' };
  return { code: 'enabled-by-sysvinit', reason: 'Cloud-init enabled on sysvinit' };
}

/**
 * status.json's v1 object, undefined without the file; a file that does not parse reads as empty, as a crashed writer
 * leaves it.
 */
async function readStatusV1(platform: Platform, file: string): Promise<Record<string, unknown> | undefined> {
  const text = await platform.readTextIfExists(file);
  if (text === undefined) return undefined;
  try {
    const doc = JSON.parse(text) as { v1?: unknown };
    return doc.v1 && typeof doc.v1 === 'object' && !Array.isArray(doc.v1) ? (doc.v1 as Record<string, unknown>) : {};
  } catch {
    return {}; // a status file that is not JSON holds no status yet (cloud-init rewrites it)
  }
}

/** How `status` asks systemd about failed units (cloud-init's systemd_failed); without it, systemd is not asked. */
export interface SystemdQuery {
  /** `status --wait`: systemctl is asked again until it answers. */
  wait: boolean;
  warn: (line: string) => void;
  retryMs?: number;
}

/**
 * A live system booted by systemd: not a --root target (its systemd is not the one running), as uses_systemd() tests.
 */
async function onLiveSystemd(platform: Platform): Promise<boolean> {
  return platform.root === '/' && platform.os === 'linux' && (await platform.exists('/run/systemd/system'));
}

export async function readBootStatus(
  platform: Platform,
  embedded: ConfigMap | undefined,
  cmdline?: string,
  systemd?: SystemdQuery,
): Promise<BootStatus> {
  const rc = await loadRunConfig(platform, embedded, cmdline ?? (await readKernelCmdline(platform)));
  const v1 = await readStatusV1(platform, rc.paths.statusFile);
  const resultExists = await platform.exists(rc.paths.resultFile);
  const boot = await bootStatusOf(platform, rc);
  const askSystemd = systemd && (await onLiveSystemd(platform)) ? () => systemdFailed(platform, systemd) : undefined;
  return computeBootStatusWithSystemd({
    v1,
    resultExists,
    bootStatusCode: boot.code,
    bootDescription: boot.reason,
    systemdFailed: askSystemd,
  });
}
