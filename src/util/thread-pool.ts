// The size of libuv's thread pool for this process, set before the pool starts (at its first job).
//
// On a boot the pool runs only crypto work (the platform's file calls are synchronous): host-key prime
// screening, a few rounds queued at a time. A thread per CPU is all that work can use, and every thread left
// idle costs the main thread a wake-up when a round is queued (libuv signals an idle worker for each job; on a
// small VM that is an inter-processor interrupt, ~10-20% of the main thread's cost per round). Paired first
// boots on a 2-CPU VM: 16 threads 410 ms mean, 2 threads 393 ms. An explicit UV_THREADPOOL_SIZE is left as it is.
import { availableParallelism } from 'node:os';

/** Threads for this machine: one per CPU, at least two. */
export function poolThreads(cpus: number = availableParallelism()): string {
  return String(Math.max(2, cpus));
}

export function sizeThreadPool(env: NodeJS.ProcessEnv, cpus?: number): void {
  env.UV_THREADPOOL_SIZE ??= poolThreads(cpus);
}
