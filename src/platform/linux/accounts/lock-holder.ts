// Whether the process a shadow-utils lock file names is the one that wrote it. A lock holds only a pid, and
// after a crash (a killed boot, a power cut) the next boot reuses pids quickly: the pid in a stale lock often
// belongs to an unrelated live process. So a live pid counts as the holder only if that process already
// existed when the lock was written and the lock was written during this boot.
import { readFileSync, statSync } from 'node:fs';

/** USER_HZ: the unit of /proc/PID/stat's start time, fixed at 100 by the kernel's ABI on every arch kiln builds for. */
const TICKS_PER_SECOND = 100;
/** /proc/stat's boot time has whole seconds and the lock's mtime the file system's precision: allow for both. */
const SLACK_MS = 1500;

export interface ProcReader {
  /** Text of a /proc file, or undefined when it cannot be read. */
  read(path: string): string | undefined;
  /** Whether a process with PID exists (signal 0). */
  exists(pid: number): boolean;
}

const liveProc: ProcReader = {
  read(path) {
    try {
      return readFileSync(path, 'latin1');
    } catch {
      return undefined; // the /proc entry is gone or unreadable: nothing to learn from it
    }
  },
  exists: processExists,
};

/** Whether a process with PID exists (signal 0; EPERM means it does, owned by someone else). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Boot time in ms since the epoch (/proc/stat `btime`), or undefined. */
function bootTimeMs(proc: ProcReader): number | undefined {
  const m = /^btime (\d+)$/m.exec(proc.read('/proc/stat') ?? '');
  return m ? Number(m[1]) * 1000 : undefined;
}

/** When PID started, in ms since the epoch, or undefined when /proc does not say. */
function processStartMs(pid: number, bootMs: number, proc: ProcReader): number | undefined {
  const stat = proc.read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces or ')': the fields after the last ')' are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[19]); // field 22, starttime
  return Number.isFinite(ticks) ? bootMs + (ticks / TICKS_PER_SECOND) * 1000 : undefined;
}

/**
 * True when the lock at LOCK PATH, naming PID, may still be held by PID. False when no such process exists,
 * when the lock was written before this boot, or when PID started after the lock was written (a reused pid).
 * Where /proc cannot tell, a live pid is taken at its word, as shadow-utils does.
 */
export function lockHolderAlive(lockPath: string, pid: number, proc: ProcReader = liveProc): boolean {
  if (!proc.exists(pid)) return false;
  let writtenMs: number;
  try {
    writtenMs = statSync(lockPath).mtimeMs;
  } catch {
    return false; // gone meanwhile: nobody holds it
  }
  const bootMs = bootTimeMs(proc);
  if (bootMs === undefined) return true;
  if (writtenMs + SLACK_MS < bootMs) return false;
  const startedMs = processStartMs(pid, bootMs, proc);
  if (startedMs === undefined) return true;
  return startedMs <= writtenMs + SLACK_MS;
}
