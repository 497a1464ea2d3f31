// Logging in cloud-init's line format (`YYYY-MM-DD HH:MM:SS,mmm - file[LEVEL]: message`) to stderr and files.
import { closeSync, constants, fstatSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { Redactor } from './redact';
import { makeDirs } from './make-dirs';
import { describeError } from './errors';

/** Python's levels, plus cloud-init's DEPRECATED (35, between WARNING and ERROR). */
export type LogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'DEPRECATED' | 'ERROR' | 'CRITICAL';

const LEVEL_RANK: Record<LogLevel, number> = {
  DEBUG: 10,
  INFO: 20,
  WARNING: 30,
  DEPRECATED: 35,
  ERROR: 40,
  CRITICAL: 50,
};

export interface LogSink {
  readonly minLevel: LogLevel;
  write(line: string): void;
  close?(): void;
}

/** Formats a time as cloud-init's log does (local time, comma before milliseconds). */
export function formatLogTime(d: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())},${p(d.getMilliseconds(), 3)}`;
}

export function formatLogLine(time: Date, file: string, level: LogLevel, message: string): string {
  return `${formatLogTime(time)} - ${file}[${level}]: ${message}\n`;
}

export class StreamSink implements LogSink {
  constructor(
    readonly minLevel: LogLevel,
    private readonly stream: { write(s: string): unknown },
  ) {}
  write(line: string): void {
    this.stream.write(line);
  }
}

/**
 * Appends to a log file. Writes are synchronous on purpose: at boot a line must be on disk before a crash
 * or reboot that may follow it, and log lines are few. A log that cannot be written (a read-only or full
 * file system) never stops the run: the sink says so once, through ON FAILURE (stderr by default), and stops.
 */
export class FileSink implements LogSink {
  private fd: number | null = null;
  private failed = false;
  constructor(
    readonly minLevel: LogLevel,
    readonly path: string,
    private readonly mode = 0o640,
    private readonly onFailure: (message: string) => void = (m) => void process.stderr.write(`${m}\n`),
  ) {}
  write(line: string): void {
    if (this.failed) return;
    try {
      if (this.fd === null) {
        makeDirs(dirname(this.path));
        // Without blocking: a FIFO in the log's place (a hostile image under --root) would stop the boot at its
        // first line. Only a regular file takes lines.
        this.fd = openSync(
          this.path,
          constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK | constants.O_NOCTTY,
          this.mode,
        );
        if (!fstatSync(this.fd).isFile()) throw new Error('it is not a regular file');
      }
      writeSync(this.fd, line);
    } catch (err) {
      this.failed = true;
      this.close();
      this.onFailure(`kiln: warning: cannot write the log ${this.path}: ${describeError(err)}; no more lines go to it`);
    }
  }
  close(): void {
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        /* already unusable: nothing more to lose */
      }
    }
    this.fd = null;
  }
}

/** Collects lines in memory (tests, dry runs). */
export class MemorySink implements LogSink {
  readonly lines: string[] = [];
  constructor(readonly minLevel: LogLevel = 'DEBUG') {}
  write(line: string): void {
    this.lines.push(line);
  }
}

/**
 * Gathers the messages logged at WARNING and above while it is open, by level name, as cloud-init's LogExporter
 * does for a stage's `recoverable_errors`.
 */
export class LogCapture {
  readonly levels: Record<string, string[]> = {};
  constructor(private readonly onStop: (capture: LogCapture) => void) {}
  add(level: LogLevel, message: string): void {
    (this.levels[level] ??= []).push(message);
  }
  /** Stops gathering and returns what was gathered. */
  stop(): Record<string, string[]> {
    this.onStop(this);
    return this.levels;
  }
}

/** The root of logging for one run: where lines go and which secrets to scrub. Pass it down; never global. */
export class Logger {
  private readonly sinks: LogSink[] = [];
  private readonly captures = new Set<LogCapture>();
  constructor(
    readonly redactor: Redactor = new Redactor(),
    private readonly now: () => Date = () => new Date(),
  ) {}

  addSink(sink: LogSink): void {
    this.sinks.push(sink);
  }

  /** A logger whose lines carry FILE in the file column, as cloud-init's carry the Python module. */
  for(file: string): Log {
    return new Log(this, file);
  }

  /** Starts gathering WARNING and higher messages (scrubbed of secrets, as they are written to status.json). */
  capture(): LogCapture {
    const capture = new LogCapture((c) => this.captures.delete(c));
    this.captures.add(capture);
    return capture;
  }

  emit(file: string, level: LogLevel, message: string): void {
    if (this.captures.size > 0 && LEVEL_RANK[level] >= LEVEL_RANK.WARNING) {
      const scrubbed = this.redactor.scrub(message);
      for (const c of this.captures) c.add(level, scrubbed);
    }
    if (this.sinks.length === 0) return;
    const line = formatLogLine(this.now(), file, level, this.redactor.scrub(message));
    for (const sink of this.sinks) if (LEVEL_RANK[level] >= LEVEL_RANK[sink.minLevel]) sink.write(line);
  }

  close(): void {
    for (const sink of this.sinks) sink.close?.();
  }

  /**
   * The files (host paths) that take lines at LEVEL: where a process kiln leaves behind (power_state's wait) writes
   * what cloud-init's forked child logs.
   */
  filePaths(level: LogLevel): string[] {
    return this.sinks.flatMap((s) =>
      s instanceof FileSink && LEVEL_RANK[level] >= LEVEL_RANK[s.minLevel] ? [s.path] : [],
    );
  }
}

export class Log {
  constructor(
    private readonly logger: Logger,
    readonly file: string,
  ) {}
  debug(msg: string): void {
    this.logger.emit(this.file, 'DEBUG', msg);
  }
  info(msg: string): void {
    this.logger.emit(this.file, 'INFO', msg);
  }
  warn(msg: string): void {
    this.logger.emit(this.file, 'WARNING', msg);
  }
  /** cloud-init's DEPRECATED level: a recoverable error under its own key in status.json. */
  deprecated(msg: string): void {
    this.logger.emit(this.file, 'DEPRECATED', msg);
  }
  error(msg: string): void {
    this.logger.emit(this.file, 'ERROR', msg);
  }
  /** The log files (host paths) that take lines at LEVEL. */
  filePaths(level: LogLevel): string[] {
    return this.logger.filePaths(level);
  }
}
