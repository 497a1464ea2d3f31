// The size of libuv's thread pool for this process, set before the pool starts (at its first job).
//
// The pool runs kiln's key searches (CPU-bound, a few rounds at a time) and the file syncs the boot waits on.
// With libuv's default of four threads, a sync queued behind the searches' rounds waited for one to finish:
// ~60 ms of a first boot that adds users went to such waits. Idle threads cost nothing; an explicit
// UV_THREADPOOL_SIZE is left as it is.
const POOL_THREADS = '16';

export function widenThreadPool(env: NodeJS.ProcessEnv): void {
  env.UV_THREADPOOL_SIZE ??= POOL_THREADS;
}
