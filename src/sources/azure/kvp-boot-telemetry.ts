// What cloud-init 22.4's Azure helpers put in KVP besides diagnostics: boot telemetry from systemd's timestamps, system
// information, and the cloud-init log and dmesg compressed (get_boot_telemetry, get_system_info, push_log_to_kvp).
import { deflateSync } from 'node:zlib';
import type { Platform } from '../../platform/platform';
import { readOsRelease } from '../../platform/os-release';
import { KilnError, describeError } from '../../util/errors';
import type { Log } from '../../util/log';
import { uptimeSeconds, type KvpTelemetry } from './kvp';

/** cloud-init's MAX_LOG_TO_KVP_LENGTH: at most the last 512000 bytes of the log go to KVP per push. */
export const MAX_LOG_TO_KVP_LENGTH = 512_000;
/** Where the end of the last push is kept; in /run, so each boot starts again from the log's tail. */
export const LOG_PUSHED_TO_KVP_INDEX_FILE = '/run/cloud-init/log_pushed_to_kvp_index';
export const DEFAULT_LOG_FILE = '/var/log/cloud-init.log';

/** Why boot telemetry could not be collected (cloud-init logs it as a warning and provisions on). */
export class BootTelemetryUnavailable extends KilnError {
  override readonly name = 'BootTelemetryUnavailable';
}

/**
 * datetime.utcfromtimestamp(SECONDS).isoformat() + 'Z': its modf split, microseconds rounded half to even, shown only
 * when there are any.
 */
export function utcIsoMicros(seconds: number): string {
  let whole = Math.trunc(seconds);
  const scaled = (seconds - whole) * 1e6;
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  let micros = diff > 0.5 || (diff === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
  if (micros >= 1e6) {
    whole += 1;
    micros -= 1e6;
  } else if (micros < 0) {
    whole -= 1;
    micros += 1e6;
  }
  const base = new Date(whole * 1000).toISOString().slice(0, 19);
  return `${base}${micros ? `.${String(micros).padStart(6, '0')}` : ''}Z`;
}

/** The value of `systemctl show … -p PROPERTY` (what follows the first '='), in microseconds since boot. */
async function systemdMonotonic(platform: Platform, unit: string | undefined, property: string): Promise<number> {
  const argv = ['systemctl', 'show', ...(unit ? [unit] : []), '-p', property];
  const r = await platform.run(argv, { allowFailure: true, timeoutMs: 10_000 });
  if (r.code !== 0)
    throw new BootTelemetryUnavailable(
      `Failed to get ${property}: ${argv.join(' ')} exited ${r.code}: ${r.stderr.trim()}`,
    );
  const value = r.stdout.includes('=') ? (r.stdout.split('=')[1] ?? '').trim() : '';
  if (!value) throw new BootTelemetryUnavailable(`Failed to parse ${property} from systemd`);
  const n = Number(value);
  if (!Number.isFinite(n))
    throw new BootTelemetryUnavailable(`Failed to parse ${property} from systemd: '${value}' is not a number`);
  return n;
}

/**
 * cloud-init's get_boot_telemetry: kernel start (now less the uptime), user-space start (systemd's
 * UserspaceTimestampMonotonic) and cloud-init's activation (cloud-init-local's InactiveExitTimestampMonotonic: under
 * cloud-init-main.service too, init-local runs once that unit has started it) as one `boot-telemetry` event. Throws
 * BootTelemetryUnavailable without systemd or its answers.
 */
export async function reportBootTelemetry(
  platform: Platform,
  kvp: KvpTelemetry,
  nowMs: number = Date.now(),
): Promise<void> {
  // cloud-init's uses_systemd: /run/systemd/system is a folder (lstat: a link does not count).
  const st = await platform.stat('/run/systemd/system', { followLinks: false }).catch(() => undefined);
  const systemd = st?.type === 'directory';
  if (!systemd) throw new BootTelemetryUnavailable('distro not using systemd, skipping boot telemetry');
  const uptime = await uptimeSeconds(platform);
  if (uptime === undefined) throw new BootTelemetryUnavailable('Failed to determine kernel start timestamp');
  const kernelStart = nowMs / 1000 - uptime;
  const userStart = kernelStart + (await systemdMonotonic(platform, undefined, 'UserspaceTimestampMonotonic')) / 1e6;
  const activation = await systemdMonotonic(platform, 'cloud-init-local', 'InactiveExitTimestampMonotonic');
  const cloudinitActivation = kernelStart + activation / 1e6;
  kvp.event(
    'boot-telemetry',
    'boot-telemetry',
    `kernel_start=${utcIsoMicros(kernelStart)} user_start=${utcIsoMicros(userStart)} cloudinit_activation=${utcIsoMicros(cloudinitActivation)}`,
  );
}

/** cloud-init's _get_variant for Linux: the os-release ID folded into its variant names. */
function variantOf(distroName: string): string {
  const id = distroName.toLowerCase();
  const own = [
    'almalinux',
    'alpine',
    'arch',
    'centos',
    'cloudlinux',
    'debian',
    'eurolinux',
    'fedora',
    'mariner',
    'miraclelinux',
    'openeuler',
    'openmandriva',
    'photon',
    'rhel',
    'rocky',
    'suse',
    'virtuozzo',
  ];
  if (own.includes(id)) return id;
  if (['ubuntu', 'linuxmint', 'mint'].includes(id)) return 'ubuntu';
  if (id === 'redhat') return 'rhel';
  if (['opensuse', 'opensuse-tumbleweed', 'opensuse-leap', 'sles', 'sle_hpc'].includes(id)) return 'suse';
  return 'linux';
}

/**
 * cloud-init's get_system_info as a `system-info` event, with its get_linux_distro reading of os-release. The
 * version is kiln's (AGENT) and python_version names the Node runtime, as kiln's instance-data.json does.
 */
export async function reportSystemInfo(platform: Platform, kvp: KvpTelemetry, agent = 'kiln'): Promise<void> {
  const os = await readOsRelease(platform);
  let name = os.ID ?? '';
  const version = os.VERSION_ID ?? '';
  let flavor: string;
  const kernel = platform.uname();
  if (name.includes('sles') || name.includes('suse')) flavor = kernel.machine;
  else if (name === 'photon' || name === 'virtuozzo') flavor = os.PRETTY_NAME ?? '';
  else flavor = os.VERSION_CODENAME || (/^[^ ]+ \(([^)]+)\)/.exec(os.VERSION ?? '')?.[1] ?? '');
  if (name === 'rhel') name = 'redhat';
  kvp.event(
    'system-info',
    'system information',
    `cloudinit_version=${agent}, kernel_version=${kernel.release}, variant=${variantOf(name)}, distro_name=${name}, distro_version=${version}, flavor=${flavor}, python_version=node ${process.versions.node}`,
  );
}

/** cloud-init's report_compressed_event: CONTENT zlib-compressed, base64 in 76-character lines, in a JSON `msg`. */
export function reportCompressed(kvp: KvpTelemetry, name: string, content: Uint8Array): void {
  const b64 = deflateSync(content).toString('base64');
  const lines = b64.length ? `${b64.match(/.{1,76}/g)?.join('\n')}\n` : '';
  // json.dumps' default separators (", " and ": "), which the host's parser was written against.
  kvp.event('compressed', name, `{"encoding": "gz+b64", "data": ${JSON.stringify(lines)}}`);
}

/** Where the last push ended this boot; 0 when none (or unreadable, which is a diagnostic as in cloud-init). */
async function lastPushedIndex(platform: Platform, kvp: KvpTelemetry, log: Log): Promise<number> {
  let text: string | undefined;
  try {
    text = await platform.readTextIfExists(LOG_PUSHED_TO_KVP_INDEX_FILE);
  } catch (err) {
    log.warn(`Reading LOG_PUSHED_TO_KVP_INDEX_FILE failed: ${describeError(err)}.`);
    kvp.diagnostic(`Reading LOG_PUSHED_TO_KVP_INDEX_FILE failed: ${describeError(err)}.`);
    return 0;
  }
  if (text === undefined) return 0;
  // Python's int(): surrounding white space allowed, nothing else.
  if (!/^\s*[+-]?\d+\s*$/.test(text)) {
    const msg = `Invalid value in LOG_PUSHED_TO_KVP_INDEX_FILE: ValueError("invalid literal for int() with base 10: '${text}'").`;
    log.warn(msg);
    kvp.diagnostic(msg);
    return 0;
  }
  return Number.parseInt(text, 10);
}

/**
 * cloud-init's push_log_to_kvp: the log's bytes since the last push this boot (at most the last 512000), then
 * dmesg, each as a compressed event; a failure of either is a diagnostic and a warning, never the crawl's.
 * cloud-init calls it before each health report to the wireserver and when the source is activated.
 */
export async function pushLogToKvp(
  platform: Platform,
  kvp: KvpTelemetry,
  log: Log,
  logFile: string = DEFAULT_LOG_FILE,
): Promise<void> {
  const start = await lastPushedIndex(platform, kvp, log);
  log.debug('Dumping cloud-init.log file to KVP');
  try {
    const bytes = await platform.readFile(logFile);
    const seek = Math.max(bytes.length - MAX_LOG_TO_KVP_LENGTH, start);
    const msg = `Dumping last ${bytes.length - seek} bytes of cloud-init.log file to KVP starting from index: ${seek}`;
    log.debug(msg);
    kvp.diagnostic(msg);
    reportCompressed(kvp, 'cloud-init.log', bytes.subarray(Math.min(seek, bytes.length)));
    // Python's f.tell() after the read: the end of the file, or the seek position when that lies beyond it.
    await platform.writeFile(LOG_PUSHED_TO_KVP_INDEX_FILE, String(Math.max(seek, bytes.length)));
  } catch (err) {
    const msg = `Exception when dumping log file: ${describeError(err)}`;
    log.warn(msg);
    kvp.diagnostic(msg);
  }
  log.debug('Dumping dmesg log to KVP');
  try {
    const r = await platform.run(['dmesg'], { timeoutMs: 30_000 });
    reportCompressed(kvp, 'dmesg', Buffer.from(r.stdout, 'utf8'));
  } catch (err) {
    const msg = `Exception when dumping dmesg log: ${describeError(err)}`;
    log.warn(msg);
    kvp.diagnostic(msg);
  }
}
