// Hyper-V KVP telemetry as cloud-init's HyperVKvpReportingHandler writes it: 512-byte key + 2048-byte value records
// appended to the guest pool file.
import { randomUUID } from 'node:crypto';
import type { HostReports, Platform } from '../../platform/platform';
import type { Log } from '../../util/log';
import { describeError } from '../../util/errors';

export const KVP_POOL_FILE = '/var/lib/hyperv/.kvp_pool_1';
export const KVP_KEY_SIZE = 512;
export const KVP_VALUE_SIZE = 2048;
/** The longest value Azure reads; longer event values are split as cloud-init splits them. */
const AZURE_MAX_VALUE_SIZE = 1024;
const EVENT_PREFIX = 'CLOUD_INIT';

/** One record: KEY and VALUE in UTF-8, cut to and zero-padded to 512 and 2048 bytes (Python's struct '%ds'). */
export function kvpRecord(key: string, value: string): Buffer {
  const record = Buffer.alloc(KVP_KEY_SIZE + KVP_VALUE_SIZE);
  Buffer.from(key, 'utf8').copy(record, 0, 0, KVP_KEY_SIZE);
  Buffer.from(value, 'utf8').copy(record, KVP_KEY_SIZE, 0, KVP_VALUE_SIZE);
  return record;
}

/** Every record of a pool file, NULs stripped (cloud-init's _decode_kvp_item). */
export function readKvpRecords(bytes: Uint8Array): Array<{ key: string; value: string }> {
  const out: Array<{ key: string; value: string }> = [];
  const size = KVP_KEY_SIZE + KVP_VALUE_SIZE;
  for (let at = 0; at + size <= bytes.length; at += size) {
    const rec = Buffer.from(bytes.subarray(at, at + size));
    const strip = (b: Buffer) => b.toString('utf8').replace(/^\0+|\0+$/g, '');
    out.push({ key: strip(rec.subarray(0, KVP_KEY_SIZE)), value: strip(rec.subarray(KVP_KEY_SIZE)) });
  }
  return out;
}

/**
 * cloud-init's encode_report: the fields joined by '|', csv's minimal quoting with "'" (a field with '|', "'" or a line
 * break is quoted, quotes doubled).
 */
export function encodeReport(fields: string[]): string {
  return fields.map((f) => (/[|'\r\n]/.test(f) ? `'${f.replace(/'/g, "''")}'` : f)).join('|');
}

/** Python's json.dumps with (",", ":") separators and ASCII escapes, which the value's JSON must match. */
function pyJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** datetime.utcfromtimestamp(t).isoformat() + 'Z': microseconds only when there are any. */
function isoZ(ms: number): string {
  const iso = new Date(ms).toISOString();
  const base = iso.slice(0, 19);
  const micros = Math.round((ms % 1000) * 1000);
  return `${base}${micros ? `.${String(micros).padStart(6, '0')}` : ''}Z`;
}

export interface KvpEvent {
  type: string;
  name: string;
  description: string;
  /** SUCCESS, WARN, FAIL for finish events. */
  result?: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
}

/**
 * The records of one event: one, or several 'msg_i' slices when the JSON passes 1024 characters (cloud-init's
 * _break_down).
 */
export function encodeKvpEvent(prefix: string, event: KvpEvent, uuid: string = randomUUID()): Buffer[] {
  const key = `${prefix}|${event.type}|${event.name}|${uuid}`;
  const meta: Record<string, unknown> = { name: event.name, type: event.type, ts: isoZ(event.timestamp) };
  if (event.result !== undefined) meta.result = event.result;
  meta.msg = event.description;
  const whole = pyJson(meta);
  if (whole.length <= AZURE_MAX_VALUE_SIZE) return [kvpRecord(key, whole)];
  delete meta.msg;
  let desc = pyJson(event.description).slice(1, -1);
  const out: Buffer[] = [];
  for (let i = 0; ; i++) {
    const withoutDesc = pyJson({ ...meta, msg_i: i, msg: '' });
    const room = AZURE_MAX_VALUE_SIZE - withoutDesc.length - 8;
    out.push(kvpRecord(`${key}|${i}`, withoutDesc.replace('"msg":""', `"msg":"${desc.slice(0, room)}"`)));
    desc = desc.slice(room);
    if (desc.length === 0) return out;
  }
}

interface HypervHandler {
  /** The `reporting` key it is configured under ('telemetry' is the one newer cloud-init writes its reports to). */
  name: string;
  path: string;
  eventTypes?: string[];
}

/** The `reporting` entries of type hyperv in the system config (cloud-init's reporting handlers). */
export function hypervHandlers(config: Record<string, unknown>): HypervHandler[] {
  const reporting = config.reporting;
  if (!reporting || typeof reporting !== 'object' || Array.isArray(reporting)) return [];
  const out: HypervHandler[] = [];
  for (const [name, v] of Object.entries(reporting as Record<string, unknown>)) {
    if (!v || typeof v !== 'object' || (v as Record<string, unknown>).type !== 'hyperv') continue;
    const h = v as Record<string, unknown>;
    const types = Array.isArray(h.event_types)
      ? h.event_types.filter((t): t is string => typeof t === 'string')
      : undefined;
    out.push({
      name,
      path: typeof h.kvp_file_path === 'string' && h.kvp_file_path ? h.kvp_file_path : KVP_POOL_FILE,
      ...(types?.length ? { eventTypes: types } : {}),
    });
  }
  return out;
}

/**
 * Pool files this process already considered emptying (cloud-init's class flag: once per process, whichever handler
 * asks first).
 */
const consideredForTruncation = new Set<string>();

/**
 * The seconds since boot: the target's /proc/uptime, else this host's (a --root sandbox has no procfs; at boot they are
 * one file).
 */
export async function uptimeSeconds(platform: Platform): Promise<number | undefined> {
  const seconds = Number.parseFloat(
    (await platform.readTextIfExists('/proc/uptime').catch(() => undefined))?.split(/\s+/)[0] ?? '',
  );
  if (Number.isFinite(seconds)) return seconds;
  return platform.hostUptime?.();
}

/** An event as the runner's event log and cloud-init's ReportingEvent carry it: the timestamp in seconds. */
export interface PublishedEvent {
  event_type: string;
  name: string;
  description: string;
  timestamp: number;
  result?: string;
}

/**
 * KVP telemetry for one process, present only when the system config has a `reporting` handler of type hyperv
 * (Azure images ship one as `telemetry`). As cloud-init's handler: the pool file is emptied when it is made, if
 * the file was last written before this boot; events are queued and appended in one write per flush; a write that
 * fails is a warning (KVP is best effort).
 */
export class KvpTelemetry {
  private readonly queued = new Map<HypervHandler, Buffer[]>();

  private constructor(
    private readonly platform: Platform,
    private readonly files: HostReports,
    private readonly handlers: HypervHandler[],
    private readonly log: Log,
    private readonly prefix: string,
    private readonly now: () => number,
  ) {}

  /** Undefined when no hyperv handler is configured, or the platform tells the host nothing (a dry run). */
  static async fromConfig(
    platform: Platform,
    config: Record<string, unknown>,
    log: Log,
    now: () => number = Date.now,
  ): Promise<KvpTelemetry | undefined> {
    const handlers = hypervHandlers(config);
    const files = platform.hostReports?.();
    if (handlers.length === 0 || !files) return undefined;
    // cloud-init's incarnation number: the boot time in whole seconds, from the uptime.
    const uptime = await uptimeSeconds(platform);
    if (uptime === undefined) log.warn('KVP: /proc/uptime is unreadable; the incarnation number is 0');
    const bootTimeMs = uptime === undefined ? 0 : now() - uptime * 1000;
    const telemetry = new KvpTelemetry(
      platform,
      files,
      handlers,
      log,
      `${EVENT_PREFIX}|${uptime === undefined ? 0 : Math.trunc(bootTimeMs / 1000)}`,
      now,
    );
    for (const h of handlers) await telemetry.truncateStalePool(h, bootTimeMs);
    return telemetry;
  }

  private async hostPath(path: string): Promise<string> {
    return this.platform.resolvedHostPath ? await this.platform.resolvedHostPath(path) : this.platform.hostPath(path);
  }

  /**
   * cloud-init's _truncate_guest_pool_file: a pool last written before this boot holds the records of an earlier
   * one, which the host must not read as this boot's. Once per file and process; a later write is this boot's.
   * A missing file is left missing (hv_kvp_daemon makes it; cloud-init warns there, kiln only notes it).
   */
  private async truncateStalePool(h: HypervHandler, bootTimeMs: number): Promise<void> {
    const host = await this.hostPath(h.path);
    if (consideredForTruncation.has(host)) return;
    consideredForTruncation.add(host);
    try {
      const written = await this.files.lastWritten(h.path);
      if (written === undefined) this.log.debug(`KVP: no pool file ${h.path} yet; nothing to empty`);
      else if (written < bootTimeMs) await this.files.empty(h.path);
    } catch (err) {
      this.log.warn(`failed to truncate kvp pool file, ${describeError(err)}`);
    }
  }

  /** Queues an event for every handler whose event_types allow it (cloud-init's publish_event). */
  publish(event: PublishedEvent): void {
    const kvpEvent: KvpEvent = {
      type: event.event_type,
      name: event.name,
      description: event.description,
      timestamp: event.timestamp * 1000,
      ...(event.result !== undefined ? { result: event.result } : {}),
    };
    for (const h of this.handlers) {
      if (h.eventTypes && !h.eventTypes.includes(kvpEvent.type)) continue;
      const list = this.queued.get(h) ?? [];
      list.push(...encodeKvpEvent(this.prefix, kvpEvent));
      this.queued.set(h, list);
    }
  }

  /** An event of TYPE stamped now. */
  event(type: string, name: string, description: string, result?: string): void {
    this.publish({
      event_type: type,
      name,
      description,
      timestamp: this.now() / 1000,
      ...(result !== undefined ? { result } : {}),
    });
  }

  /** cloud-init's report_diagnostic_event: type 'diagnostic', name 'diagnostic message'. */
  diagnostic(message: string): void {
    this.event('diagnostic', 'diagnostic message', message);
  }

  /**
   * A plain key (newer cloud-init's PROVISIONING_REPORT), to the `telemetry` handler only, as its kvp.report_via_kvp.
   */
  writeKey(key: string, value: string): void {
    const h = this.handlers.find((x) => x.name === 'telemetry');
    if (!h) return;
    const list = this.queued.get(h) ?? [];
    list.push(kvpRecord(key, value));
    this.queued.set(h, list);
  }

  /** Appends what is queued. */
  async flush(): Promise<void> {
    for (const [h, records] of this.queued) {
      if (records.length === 0) continue;
      this.queued.set(h, []);
      try {
        // One O_APPEND write of whole records: hv_kvp_daemon never sees half a record.
        await this.files.append(h.path, Buffer.concat(records));
      } catch (err) {
        this.log.warn(`failed posting events to kvp, ${describeError(err)}`);
      }
    }
  }
}

/**
 * The PROVISIONING_REPORT newer cloud-init writes on failure (ReportableError.as_encoded_report); SUPPORTING
 * (`key=value`) goes between the agent and the VM id, as the error's supporting data.
 */
export function failureReport(
  reason: string,
  vmId: string,
  at: Date,
  agent = 'kiln',
  supporting: string[] = [],
): string {
  return encodeReport([
    `result=error`,
    `reason=${reason}`,
    `agent=${agent}`,
    ...supporting,
    `vm_id=${vmId}`,
    `timestamp=${at.toISOString().replace(/Z$/, '')}`,
    'documentation_url=https://aka.ms/linuxprovisioningerror',
  ]);
}

/** The PROVISIONING_REPORT newer cloud-init writes once the ready report went out (report_success_to_host). */
export function successReport(vmId: string, at: Date, agent = 'kiln'): string {
  return encodeReport([
    `result=success`,
    `agent=${agent}`,
    `timestamp=${at.toISOString().replace(/Z$/, '')}`,
    `vm_id=${vmId}`,
  ]);
}
