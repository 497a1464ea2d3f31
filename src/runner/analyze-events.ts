// Reads kiln's event log back for `analyze`: per-boot records, module times, and the show/blame text.
import type { BootEvent } from './event-log';

export interface TimedEvent {
  name: string;
  description: string;
  start: number;
  seconds: number;
  result: string;
}

/** Pairs start and finish events; a new init-local start begins a new boot. */
export function pairEvents(events: BootEvent[]): TimedEvent[][] {
  const boots: TimedEvent[][] = [];
  let current: TimedEvent[] | undefined;
  const open = new Map<string, BootEvent>();
  for (const e of events) {
    if (e.event_type === 'start') {
      if (e.name === 'init-local' || current === undefined) {
        current = [];
        boots.push(current);
        open.clear();
      }
      open.set(e.name, e);
      continue;
    }
    const s = open.get(e.name);
    if (!s || !current) continue;
    open.delete(e.name);
    current.push({ name: e.name, description: s.description, start: s.timestamp, seconds: e.timestamp - s.timestamp, result: e.result ?? 'SUCCESS' });
  }
  return boots.map((b) => b.sort((a, c) => a.start - c.start));
}

function clock(seconds: number): string {
  const m = Math.floor(seconds / 60);
  return `${String(m).padStart(2, '0')}:${(seconds - m * 60).toFixed(5).padStart(8, '0')}`;
}

/** `analyze show`: every event of every boot with its offset and duration, in cloud-init's layout. */
export function formatShow(boots: TimedEvent[][]): string {
  const out: string[] = [];
  boots.forEach((boot, i) => {
    out.push('-- Boot Record --');
    const t0 = boot[0]?.start ?? 0;
    for (const e of boot) out.push(`${e.result === 'SUCCESS' ? 'Finished' : e.result === 'FAIL' ? 'Failed' : 'Finished (with warnings)'} stage: (${e.name}) ${e.description} @${clock(e.start - t0)} +${e.seconds.toFixed(5)}s`);
    const total = boot.filter((e) => !e.name.includes('/')).reduce((s, e) => s + e.seconds, 0);
    out.push(`Total Time: ${total.toFixed(5)} seconds`, '');
    if (i === boots.length - 1) out.push(`${boots.length} boot records analyzed`);
  });
  return `${out.join('\n')}\n`;
}

/** `analyze blame`: modules and stages by time taken, slowest first, per boot. */
export function formatBlame(boots: TimedEvent[][]): string {
  const out: string[] = [];
  for (const boot of boots) {
    out.push('-- Boot Record --');
    for (const e of [...boot].sort((a, b) => b.seconds - a.seconds)) out.push(`     ${e.seconds.toFixed(5)}s (${e.name})`);
    out.push('');
  }
  out.push(`${boots.length} boot records analyzed`);
  return `${out.join('\n')}\n`;
}
