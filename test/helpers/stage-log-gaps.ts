// Where a stage's own time goes: the guest's cloud-init.log (both kiln and cloud-init write one, each line stamped
// to the millisecond) from init-local's banner to the final stage's finish event, printed on the console by a probe;
// per stage, its span and the part of it that ran other programs (both log each one as `Running command …`), and
// the longest pauses between one line and the next: the step logged before a long pause is the one that took the time.
import type { ConsoleLine } from './qemu-boot';

const TAG = 'STAGELOG ';

/**
 * The shell lines a probe runs after the final stage to print the stages' part of /var/log/cloud-init.log (from
 * init-local's banner or its start event to the final stage's finish event), one tagged line each (needs the probe's
 * `say`).
 */
export const STAGE_LOG_PROBE_SHELL = [
  "awk '/running .init-local. at|start: init-local: / {p=1} p {print} /finish: modules-final: / {exit}' /var/log/cloud-init.log |",
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

/** The four stages as both programs log them: the banner's stage name and the top-level finish event's. */
const STAGES = [
  { stage: 'init-local', banner: "running 'init-local'", finish: 'finish: init-local: ' },
  { stage: 'init', banner: "running 'init'", finish: 'finish: init-network: ' },
  { stage: 'modules-config', banner: "running 'modules:config'", finish: 'finish: modules-config: ' },
  { stage: 'modules-final', banner: "running 'modules:final'", finish: 'finish: modules-final: ' },
] as const;

export interface StageLogPart {
  stage: (typeof STAGES)[number]['stage'];
  /** The stage's lines, its banner to its finish event. */
  lines: string[];
  /** Seconds from its banner to its finish event. */
  span: number;
  /**
   * Seconds from each `Running command` line to the line after it: the time other programs (ssh-keygen, useradd,
   * growpart, systemctl …) took, which both sides spend alike (an upper bound: it includes what the program logging
   * did between the command's end and its next line).
   */
  commands: number;
}

/** LOG (the probe's lines) cut into its stages; a stage whose banner or finish is missing is left out. */
export function stageLogParts(log: readonly string[]): StageLogPart[] {
  const parts: StageLogPart[] = [];
  for (const { stage, banner, finish } of STAGES) {
    const start = log.findIndex((line) => line.includes(banner));
    if (start < 0) continue;
    const end = log.findIndex((line, i) => i > start && line.includes(finish));
    if (end < 0) continue;
    const lines = log.slice(start, end + 1);
    parts.push({ stage, lines, span: loggedSpan(lines), commands: commandSeconds(lines) });
  }
  return parts;
}

/** The seconds LOG spent after each `Running command` line, to the next stamped line. */
export function commandSeconds(log: readonly string[]): number {
  const stamped = log.flatMap((line) => {
    const at = secondsOf(line);
    return at === undefined ? [] : [{ at, command: line.includes('Running command') }];
  });
  let total = 0;
  for (let i = 0; i + 1 < stamped.length; i++) {
    const a = stamped[i] as { at: number; command: boolean };
    if (a.command) total += (stamped[i + 1] as { at: number }).at - a.at;
  }
  return total;
}
