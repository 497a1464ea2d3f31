// Boot events read back from cloud-init's own log, as cloud-init's `analyze` reads them: its cloud-init.log (or a
// syslog or journal copy of it), where each stage starts with a "Cloud-init v. … running '<stage>'" banner and the
// reporting handler logs "start: <name>: <description>" and "finish: <name>: <result>: <description>".
import type { BootEvent } from './event-log';

/** The description cloud-init's analyze gives a stage it knows only from its banner. */
const STAGE_DESCRIPTIONS: Record<string, string> = {
  'init-local': 'starting search for local datasources',
  'init-network': 'searching for network datasources',
  'modules-config': 'running config modules',
  'modules-final': 'finalizing modules',
  modules: 'running modules for',
  single: 'running single module ',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** What separates the time (and host) from the message: cloud-init.log's, rsyslog's [CLOUDINIT] tag, Amazon Linux's. */
const AMAZON_SEPARATOR = ' cloud-init[';
const SEPARATORS = [' - ', ' [CLOUDINIT] ', AMAZON_SEPARATOR];

/**
 * Seconds since the epoch for a log line's time, read as UTC as cloud-init reads it: `2016-09-12 14:39:20,839`
 * (cloud-init.log), `Aug 29 22:55:26` (syslog, in YEAR), `Nov 03 06:51:06.074410` (journalctl -o short-precise, in
 * YEAR), or an ISO 8601 time with its offset. Undefined for anything else.
 */
export function parseLogTimestamp(text: string, year: number): number | undefined {
  const syslog = /^([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{2}):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(text);
  if (syslog) {
    const month = MONTHS.indexOf(syslog[1] as string);
    if (month < 0) return undefined;
    return Date.UTC(year, month, Number(syslog[2]), Number(syslog[3]), Number(syslog[4])) / 1000 + Number(syslog[5]);
  }
  const asctime = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}),(\d+)$/.exec(text);
  if (asctime) {
    const [y, mo, d, h, mi, s] = asctime.slice(1, 7).map(Number) as [number, number, number, number, number, number];
    return Date.UTC(y, mo - 1, d, h, mi, s) / 1000 + Number(`0.${asctime[7]}`);
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

/** One log line's event, or undefined when the line is none (or cannot be read). */
export function parseCloudInitLogLine(line: string, year: number): BootEvent | undefined {
  const separator = SEPARATORS.find((s) => line.includes(s));
  if (separator === undefined) return undefined;
  const parts = line.split(separator);
  // cloud-init unpacks exactly two parts; a line with the separator twice is skipped as invalid.
  if (parts.length !== 2) return undefined;
  let [timeHost, message] = parts as [string, string];
  if (timeHost.endsWith(':')) timeHost = timeHost.split(/\s+/).slice(0, -1).join(' ');
  let time: string;
  if (timeHost.includes(',')) {
    const [date, rest] = timeHost.split(',', 2) as [string, string];
    time = `${date},${rest.split(/\s+/)[0]}`;
  } else if (separator === AMAZON_SEPARATOR) {
    // No host name; the message starts with the PID ("2673]: handlers.py[DEBUG]: …").
    time = timeHost.trim();
    message = message.replace(/^\S+\s+/, '');
  } else {
    const host = timeHost.trim().split(/\s+/).pop() ?? '';
    time = timeHost.slice(0, timeHost.lastIndexOf(host)).trim();
  }
  const timestamp = parseLogTimestamp(time, year);
  if (timestamp === undefined) return undefined;
  if (message.includes('Cloud-init v.')) {
    // A stage's banner starts it; the "finished at" banner starts nothing.
    const running = /running\s+'?([^'\s]+)'?\s+at /.exec(message);
    if (!running) return undefined;
    let name = (running[1] as string).replace(/:/g, '-');
    if (name === 'init') name = 'init-network';
    const description = STAGE_DESCRIPTIONS[name];
    if (description === undefined) return undefined;
    return { name, description, event_type: 'start', origin: 'cloudinit', timestamp };
  }
  const tokens = message.trim().split(/\s+/);
  const type = tokens[1]?.replace(/:$/, '');
  const rawName = tokens[2];
  if ((type !== 'start' && type !== 'finish') || rawName === undefined) return undefined;
  const name = rawName.replace(/:$/, '');
  const rest = message.slice(message.indexOf(rawName) + rawName.length).trim();
  if (type === 'start') return { name, description: rest, event_type: 'start', origin: 'cloudinit', timestamp };
  const result = rest.split(':')[0] as string;
  const description = rest.slice(result.length).replace(/^:/, '').trim();
  return {
    name,
    description,
    event_type: 'finish',
    origin: 'cloudinit',
    timestamp,
    result: result as BootEvent['result'],
  };
}

/**
 * Every event of TEXT (cloud-init.log or a syslog/journal copy of its lines), in the order logged; YEAR dates syslog
 * times.
 */
export function parseCloudInitLogEvents(text: string, year: number): BootEvent[] {
  const out: BootEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('start:') && !line.includes('finish:') && !line.includes('Cloud-init v.')) continue;
    const event = parseCloudInitLogLine(line, year);
    if (event) out.push(event);
  }
  return out;
}
