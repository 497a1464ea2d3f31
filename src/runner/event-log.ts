// kiln's event log: start/finish events of stages and modules (cloud-init's reporting events), one JSON per line.
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';

export interface BootEvent {
  name: string;
  description: string;
  event_type: 'start' | 'finish';
  origin: 'cloudinit';
  timestamp: number;
  result?: 'SUCCESS' | 'WARN' | 'FAIL';
}

/** Where events go besides the log file: a reporting handler of the config (cloud-init's hyperv KVP handler). */
export interface EventSink {
  publish(event: BootEvent): void;
  flush(): Promise<void>;
}

export class EventLog {
  private readonly pending: BootEvent[] = [];
  private sink: EventSink | undefined;
  constructor(
    private readonly platform: Platform,
    private readonly file: string,
    private readonly log: Log,
    private readonly now: () => Date,
  ) {}

  /**
   * Sends the events from now on to SINK as well (undefined: no more). The runner attaches the configured
   * handlers once a stage has read its config, as cloud-init registers them only then.
   */
  attach(sink: EventSink | undefined): void {
    this.sink = sink;
  }

  private record(event: BootEvent): void {
    this.pending.push(event);
    this.sink?.publish(event);
  }

  /** Also logs the event as cloud-init's handlers.py does, so `analyze` in either tool can read cloud-init.log. */
  start(name: string, description: string): void {
    this.record({
      name,
      description,
      event_type: 'start',
      origin: 'cloudinit',
      timestamp: this.now().getTime() / 1000,
    });
    this.log.debug(`start: ${name}: ${description}`);
  }

  finish(name: string, result: 'SUCCESS' | 'WARN' | 'FAIL', description: string): void {
    this.record({
      name,
      description,
      event_type: 'finish',
      origin: 'cloudinit',
      timestamp: this.now().getTime() / 1000,
      result,
    });
    this.log.debug(`finish: ${name}: ${result}: ${description}`);
  }

  /** Appends the events so far to the file and flushes the sink (once per stage: fewer writes at boot). */
  async flush(): Promise<void> {
    try {
      if (this.pending.length === 0) return;
      const text = `${this.pending.map((e) => JSON.stringify(e)).join('\n')}\n`;
      this.pending.length = 0;
      await this.platform.writeFile(this.file, text, { append: true, mode: 0o644 });
    } finally {
      await this.sink?.flush();
    }
  }
}

export function parseEventLog(text: string): BootEvent[] {
  const out: BootEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line) as BootEvent;
      if (typeof e.name === 'string' && typeof e.timestamp === 'number') out.push(e);
    } catch {
      // A line cut short by a crash; the rest of the log still reads.
    }
  }
  return out;
}
