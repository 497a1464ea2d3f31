// Where a stage's own time goes: the guest's cloud-init.log (both kiln and cloud-init write one, each line stamped
// to the millisecond) between a stage's banner and the next stage's, printed on the console by a probe, and the
// longest pauses between one line and the next: the step logged before a long pause is the one that took the time.
import type { ConsoleLine } from './qemu-boot';

const TAG = 'STAGELOG ';

/**
 * The shell lines a probe runs after the final stage to print init-local's part of /var/log/cloud-init.log (from
 * its banner or its start event to its finish event), one tagged line each (needs the probe's `say`).
 */
export const STAGE_LOG_PROBE_SHELL = [
  "awk '/running .init-local. at|start: init-local: / {p=1} p {print} /finish: init-local: / {exit}' /var/log/cloud-init.log |",
  'while IFS= read -r l; do',
  `  say "${TAG}$l"`,
  'done',
].join('\n');

/** A cloud-init.log line's time ("2026-12-07 17:00:01,234 - main.py[DEBUG]: …"), in seconds of the day. */
const STAMP = /^(\d{4}-\d\d-\d\d) (\d\d):(\d\d):(\d\d),(\d{3}) - /;

export interface LogGap {
  /** Seconds from this line to the next one. */
  seconds: number;
  /** The line logged before the pause (the step that was running), without its time stamp. */
  before: string;
  /** The line that ended the pause. */
  after: string;
}

/** The STAGELOG lines of a console, in order, without the tag. */
export function stageLogLines(lines: readonly ConsoleLine[]): string[] {
  return lines.filter((l) => l.text.includes(TAG)).map((l) => l.text.slice(l.text.indexOf(TAG) + TAG.length));
}

function secondsOf(line: string): number | undefined {
  const m = STAMP.exec(line);
  if (!m) return undefined;
  const [, , h, min, sec, ms] = m;
  return Number(h) * 3600 + Number(min) * 60 + Number(sec) + Number(ms) / 1000;
}

/** The COUNT longest pauses between consecutive stamped lines of LOG (lines without a stamp are skipped). */
export function longestGaps(log: readonly string[], count: number): LogGap[] {
  const stamped = log.flatMap((line) => {
    const at = secondsOf(line);
    return at === undefined ? [] : [{ at, text: line.replace(STAMP, '') }];
  });
  const gaps: LogGap[] = [];
  for (let i = 0; i + 1 < stamped.length; i++) {
    const a = stamped[i] as { at: number; text: string };
    const b = stamped[i + 1] as { at: number; text: string };
    gaps.push({ seconds: b.at - a.at, before: a.text, after: b.text });
  }
  return gaps.sort((x, y) => y.seconds - x.seconds).slice(0, count);
}

/** The whole span of LOG's stamped lines, in seconds (0 when it has fewer than two). */
export function loggedSpan(log: readonly string[]): number {
  const times = log.map(secondsOf).filter((t): t is number => t !== undefined);
  return times.length < 2 ? 0 : (times.at(-1) as number) - (times[0] as number);
}
