// Lowers, and later restores, the scheduling priority of libuv's thread-pool workers, so that long background
// work on the pool (an image's first host keys) takes what the main thread leaves of the CPUs instead of an
// equal share: on a small VM the main thread's boot work is as much on the critical path as the keys are.
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The nice value given to pool workers: the lowest, so that a dozen busy workers take ~15% of a core the main thread wants. */
const POOL_NICENESS = 19;

/**
 * Renices every libuv worker thread of this process that exists now (Linux threads carry their own nice value;
 * /proc/self/task names them) and returns their thread ids. Best effort: where there is no procfs, or renicing
 * is refused, nothing changes. The workers exist once the first job was queued, so call this after queuing.
 */
export function lowerPoolPriority(): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return []; // no procfs: another OS, or a root without /proc mounted
  }
  const changed: number[] = [];
  for (const tid of tasks) {
    try {
      if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== 'libuv-worker') continue;
      setPriority(Number(tid), POOL_NICENESS);
      changed.push(Number(tid));
    } catch {
      /* the thread ended, or renicing is not allowed: it keeps its priority */
    }
  }
  return changed;
}

/** Gives THREADS the process's normal priority back (raising it needs root, as kiln is at boot). */
export function restorePoolPriority(threads: number[]): void {
  for (const tid of threads) {
    try {
      setPriority(tid, 0);
    } catch {
      /* not root: the workers stay reniced, which only slows them when the CPUs are busy */
    }
  }
}
