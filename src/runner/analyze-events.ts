// Boot events into `analyze show` and `analyze blame` reports, as cloud-init's analyze builds them: events in the
// order logged, a start directly followed by its own finish is one line (a module, a step), any other start opens a
// stage that its finish closes, and each init-local start begins a new boot record.
import type { BootEvent } from './event-log';

/** `analyze show`'s default line: indent, description, seconds since the boot record began, seconds taken. */
export const SHOW_FORMAT = '%I%D @%Es +%ds';
/** `analyze blame`'s line: seconds taken, then the name. */
const BLAME_FORMAT = '     %ds (%n)';

/** The values a format's %-keys stand for (cloud-init's format_key). */
const FORMAT_KEYS: Record<string, string> = {
  '%d': 'delta',
  '%D': 'description',
  '%E': 'elapsed',
  '%e': 'event_type',
  '%I': 'indent',
  '%l': 'level',
  '%n': 'name',
  '%o': 'origin',
  '%r': 'result',
  '%t': 'timestamp',
  '%T': 'total_time',
};
const TIME_KEYS = new Set(['delta', 'elapsed', 'timestamp']);

type EventRecord = BootEvent & { delta: number; elapsed: number; indent: string };

/** Microseconds of an event's time: cloud-init measures through datetimes, which keep whole microseconds. */
function micros(e: BootEvent): number {
  return Math.round(e.timestamp * 1e6);
}

/** Python's '{:08.5f}': five decimals, zero-padded to eight characters. */
function fixed8(n: number): string {
  const text = Math.abs(n).toFixed(5);
  return n < 0 ? `-${text.padStart(7, '0')}` : text.padStart(8, '0');
}

/** FORMAT with its %-keys replaced by RECORD's values; a key the record lacks is an error, as in cloud-init. */
export function formatRecord(format: string, record: Readonly<Partial<Record<string, unknown>>> | EventRecord): string {
  return format.replace(/%[dDEeIlnortT]/g, (key) => {
    const field = FORMAT_KEYS[key] as string;
    const value = (record as Record<string, unknown>)[field];
    if (value === undefined)
      throw new Error(`analyze: the format's ${key} needs '${field}', which this event does not have`);
    return TIME_KEYS.has(field) ? fixed8(Number(value)) : String(value);
  });
}

function eventRecord(startMicros: number, start: BootEvent, finish: BootEvent): EventRecord {
  return {
    ...finish,
    delta: (micros(finish) - micros(start)) / 1e6,
    elapsed: (micros(start) - startMicros) / 1e6,
    indent: `|${' '.repeat(Math.max(0, start.name.split('/').length - 2))}\`->`,
  };
}

function totalTimeRecord(total: number): string {
  return `Total Time: ${total.toFixed(5)} seconds\n`;
}

/** The lines of each boot record, for FORMAT (cloud-init's generate_records). */
export function generateRecords(events: BootEvent[], format: string): string[][] {
  const boots: string[][] = [];
  let records: string[] = [];
  let startMicros: number | undefined;
  let total = 0;
  const open: BootEvent[] = [];
  events.forEach((event, i) => {
    const next = events[i + 1];
    if (event.event_type === 'start') {
      if (records.length > 0 && event.name === 'init-local') {
        records.push(totalTimeRecord(total));
        boots.push(records);
        records = [];
        startMicros = undefined;
        total = 0;
      }
      startMicros ??= micros(event);
      if (next && next.name === event.name) {
        if (next.event_type === 'finish') records.push(formatRecord(format, eventRecord(startMicros, event, next)));
      } else {
        records.push(`Starting stage: ${event.name}`);
        open.push(event);
      }
      return;
    }
    // A finish: it closes the stage opened last when it is that stage's; the finish of a one-line pair is passed over.
    const stage = open.at(-1);
    if (!stage || stage.name !== event.name) return;
    open.pop();
    const record = eventRecord(startMicros ?? micros(stage), stage, event);
    records.push(`${formatRecord('Finished stage: (%n) %d seconds', record)}\n`);
    total += record.delta;
  });
  records.push(totalTimeRecord(total));
  boots.push(records);
  return boots;
}

/**
 * Each boot record as BODY gives it under its numbered heading, then how many were analyzed, as cloud-init frames both
 * reports.
 */
function frameBoots(boots: string[][], body: (records: string[]) => string): string {
  const out = boots.map((records, i) => `-- Boot Record ${String(i + 1).padStart(2, '0')} --\n${body(records)}`);
  return `${out.join('')}${boots.length} boot records analyzed\n`;
}

/** `analyze show`: every boot record with its header, as cloud-init prints it. */
export function formatShow(events: BootEvent[], format = SHOW_FORMAT): string {
  return frameBoots(
    generateRecords(events, format),
    (records) =>
      'The total time elapsed since completing an event is printed after the "@" character.\n' +
      'The time the event takes is printed after the "+" character.\n\n' +
      `${records.join('\n')}\n`,
  );
}

/**
 * `analyze blame`: each boot's one-line events by the time they took, largest first (as text, as cloud-init sorts
 * them).
 */
export function formatBlame(events: BootEvent[]): string {
  return frameBoots(generateRecords(events, BLAME_FORMAT), (records) => {
    const timed = records.filter((r) => /^\s+\d+\.\d+/.test(r)).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    return `${timed.join('\n')}\n\n`;
  });
}
