// Milliseconds from an arbitrary start, for measuring durations. performance.now() would do, but the first
// use of the `performance` global loads perf_hooks (about 2 ms of every start); process.hrtime is always there.
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
