// Reads a boot's timeline off its timestamped serial console: when the kernel started, when systemd started, and
// when each cloud-init stage's unit started and finished, all in seconds since qemu was started. The same reading
// serves kiln and Debian's cloud-init: the stages are timed by systemd (the units' own timestamps), not by either.
import type { ConsoleLine } from './qemu-boot';

/**
 * The four stages, in boot order, with the unit that starts each (the same names for kiln and Debian's cloud-init),
 * and the unit's name before cloud-init 24.3 renamed it (Debian 12's cloud-init 22.4), read where the new one did not
 * run.
 */
export const STAGE_UNITS: readonly {
  stage: 'init-local' | 'init' | 'modules-config' | 'modules-final';
  unit: string;
  formerly?: string;
  banner: string;
}[] = [
  { stage: 'init-local', unit: 'cloud-init-local.service', banner: 'init-local' },
  { stage: 'init', unit: 'cloud-init-network.service', formerly: 'cloud-init.service', banner: 'init' },
  { stage: 'modules-config', unit: 'cloud-config.service', banner: 'modules:config' },
  { stage: 'modules-final', unit: 'cloud-final.service', banner: 'modules:final' },
];

/** Every unit name STAGE_UNITS may find a stage under. */
export const STAGE_UNIT_NAMES: readonly string[] = STAGE_UNITS.flatMap((s) =>
  s.formerly ? [s.unit, s.formerly] : [s.unit],
);

export type StageName = (typeof STAGE_UNITS)[number]['stage'];

export interface StageTiming {
  stage: StageName;
  /** When systemd started the unit (it left "inactive"), seconds since qemu start. */
  start: number;
  /** When the unit's process had finished and the unit became active (a oneshot unit), seconds since qemu start. */
  end: number;
  /** systemd's Result for the unit ("success" when the stage exited 0). */
  result: string;
  /**
   * When the stage's program printed its "Cloud-init v. … running '<stage>' … Up N seconds." banner (both do, at
   * the start of their work), from its N: the time from the unit's start to it is the program's own start-up.
   */
  banner?: number;
}

export interface BootTimeline {
  /** When the kernel's clock read zero, in seconds since qemu start (as the early kernel's own clock tells). */
  kernelStart: number;
  /** When systemd (PID 1) started. */
  userspaceStart: number;
  stages: StageTiming[];
  /** When the final stage finished: the end of cloud-init's work on this boot. */
  finalEnd: number;
}

export class TimelineError extends Error {}

/**
 * The shell lines a probe unit runs in the guest (after cloud-final.service) to print what parseBootTimeline reads:
 * systemd's monotonic timestamps (microseconds since the kernel's clock started) of the manager and of each stage
 * unit, one tagged line each on the serial console.
 */
export const TIMELINE_PROBE_SHELL = [
  'say "TIMELINE-USERSPACE $(systemctl show -p UserspaceTimestampMonotonic --value)"',
  `for u in ${STAGE_UNIT_NAMES.join(' ')}; do`,
  '  say "TIMELINE-UNIT $u $(systemctl show -p InactiveExitTimestampMonotonic --value "$u") $(systemctl show -p ActiveEnterTimestampMonotonic --value "$u") $(systemctl show -p Result --value "$u")"',
  'done',
].join('\n');

/** A printk timestamp at the start of a kernel console line ("[   12.345678] ..."), in seconds. */
const PRINTK = /^\[\s*(\d+\.\d{6})\]/;

/** How far, in guest seconds, the kernel lines that place a guest time on the host's clock may lie from it. */
const NEAR_SECONDS = 15;

/**
 * A function from a time of the guest's clock (seconds since the kernel's clock started) to seconds since qemu
 * start. Each kernel line arrived at AT and says it was logged at T, so guest time T was host time AT or earlier
 * (a line can only arrive late: early lines wait in the log buffer until the serial console is registered); the
 * smallest AT - T is the closest bound. It is taken among the lines logged near the time asked for, not over the
 * whole boot: under TCG on a busy host the guest's clock loses seconds in early boot (its TSC calibrated wrong
 * until the clocksource is switched), after which it keeps the host's pace at a larger offset. Undefined when the
 * console has no kernel line with a timestamp.
 */
export function guestClock(lines: readonly ConsoleLine[]): ((guestSeconds: number) => number) | undefined {
  const pairs: { logged: number; offset: number }[] = [];
  for (const l of lines) {
    const m = PRINTK.exec(l.text);
    if (m) pairs.push({ logged: Number(m[1]), offset: l.at - Number(m[1]) });
  }
  if (pairs.length === 0) return undefined;
  return (t) => {
    let near = pairs.filter((p) => Math.abs(p.logged - t) <= NEAR_SECONDS);
    // No line that close: the nearest ones (a quiet stretch of the boot).
    if (near.length === 0)
      near = [...pairs].sort((a, b) => Math.abs(a.logged - t) - Math.abs(b.logged - t)).slice(0, 3);
    return t + Math.min(...near.map((p) => p.offset));
  };
}

/** When the kernel's clock started, in seconds since qemu start (see guestClock), or undefined. */
export function kernelClockStart(lines: readonly ConsoleLine[]): number | undefined {
  return guestClock(lines)?.(0);
}

/** The words after TAG on the console lines that carry it (anywhere in the line: other output may precede it). */
function tagged(lines: readonly ConsoleLine[], tag: string): string[][] {
  const out: string[][] = [];
  for (const l of lines) {
    const i = l.text.indexOf(`${tag} `);
    if (i < 0 || (i > 0 && !/\s/.test(l.text[i - 1] ?? ''))) continue;
    out.push(
      l.text
        .slice(i + tag.length)
        .trim()
        .split(/\s+/),
    );
  }
  return out;
}

/** Microseconds of a systemd monotonic timestamp as a number; 0 (never happened) and garbage are undefined. */
function micros(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n > 0 ? n : undefined;
}

/** The "Up N seconds" of the first banner of stage BANNER on the console (seconds since the kernel's clock started). */
function bannerUptime(lines: readonly ConsoleLine[], banner: string): number | undefined {
  const pattern = new RegExp(`Cloud-init v\\. .* running '${banner}' at .* Up (\\d+(?:\\.\\d+)?) seconds`);
  for (const l of lines) {
    const m = pattern.exec(l.text);
    if (m) return Number(m[1]);
  }
  return undefined;
}

/** The boot's timeline, or a TimelineError saying what the console lacks. */
export function parseBootTimeline(lines: readonly ConsoleLine[]): BootTimeline {
  const clock = guestClock(lines);
  if (clock === undefined)
    throw new TimelineError(
      'no kernel line with a timestamp on the console: is printk.time=1 on the kernel command line?',
    );
  const kernelStart = clock(0);
  const at = (us: number) => clock(us / 1e6);
  const userspace = micros(tagged(lines, 'TIMELINE-USERSPACE')[0]?.[0]);
  if (userspace === undefined) throw new TimelineError('the probe printed no TIMELINE-USERSPACE line (did it run?)');
  const units = tagged(lines, 'TIMELINE-UNIT');
  const stages: StageTiming[] = STAGE_UNITS.map(({ stage, unit: current, formerly, banner }) => {
    const ran = (name: string | undefined) => units.find((f) => f[0] === name && micros(f[1]) !== undefined);
    const unit = formerly && !ran(current) && ran(formerly) ? formerly : current;
    const fields = units.find((f) => f[0] === unit);
    if (!fields) throw new TimelineError(`the probe printed no TIMELINE-UNIT line for ${unit}`);
    const start = micros(fields[1]);
    const end = micros(fields[2]);
    if (start === undefined || end === undefined)
      throw new TimelineError(
        `${unit} (${stage}) did not run to the end on this boot: start ${fields[1] ?? '?'}, end ${fields[2] ?? '?'}, result ${fields[3] ?? '?'}`,
      );
    const up = bannerUptime(lines, banner);
    return {
      stage,
      start: at(start),
      end: at(end),
      result: fields[3] ?? '',
      ...(up === undefined ? {} : { banner: clock(up) }),
    };
  });
  const final = stages.at(-1) as StageTiming;
  return { kernelStart, userspaceStart: at(userspace), stages, finalEnd: final.end };
}

/** Seconds the four stages ran, together (the gaps between them are other units' time, not cloud-init's). */
export function stagesSeconds(timeline: BootTimeline): number {
  return timeline.stages.reduce((sum, s) => sum + (s.end - s.start), 0);
}
