// How many prime-screening rounds run on libuv's thread pool at once, across every search in this process.

/**
 * Screening rounds on the thread pool at once, across every search in this process (RSA's p and q, DSA's p).
 * The pool is the process's, shared with file syncs that the boot waits on, and the main thread shares the
 * CPUs with these rounds: more rounds at once only queue the syncs behind them and slow the boot, while
 * three keep two cores busy whenever the main thread waits. Process-wide for that reason.
 */
const SCREENING_SLOTS = 3;
let slotsInUse = 0;
const waitingForSlot: Array<() => void> = [];

/** How many screening rounds are running now (for tests). */
export function screeningSlotsInUse(): number {
  return slotsInUse;
}

/** Runs START once a screening slot is free; START must call the release it is given exactly once. */
export function whenSlotFree(start: (release: () => void) => void): void {
  const release = (): void => {
    slotsInUse--;
    waitingForSlot.shift()?.();
  };
  const begin = (): void => {
    slotsInUse++;
    start(release);
  };
  if (slotsInUse < SCREENING_SLOTS) begin();
  else waitingForSlot.push(begin);
}
