// How many prime-screening rounds run on libuv's thread pool at once, across every search in this process.
import { lowerPoolPriority, restorePoolPriority } from '../util/background-threads';

/**
 * Screening rounds on the thread pool at once, across every search in this process (RSA's p and q, DSA's p).
 * The pool is the process's (other crypto work, zlib and async file calls use it too), and the main thread
 * shares the CPUs with these rounds. Process-wide for that reason.
 *
 * - awaited (the default): something waits for the primes, so the main thread is mostly idle and hands out
 *   the next round as soon as one ends. Three rounds keep two cores busy; more only queue other pool work
 *   behind them and waste the rounds still running when a prime is found.
 * - ahead: keys are made before anything needs them while the boot's main thread works. It gets back to
 *   the event loop only between its synchronous stretches (tens of milliseconds while a stage reads its
 *   config or a module writes its files), so three rounds would end within a millisecond or two and leave the
 *   pool idle for the rest of the stretch. Twelve keep a core busy through such a stretch, on pool threads at
 *   the lowest priority (once the pool's workers exist), so that the main thread keeps its own core.
 */
const SLOTS = { awaited: 3, ahead: 12 } as const;
type Pace = keyof typeof SLOTS;

let pace: Pace = 'awaited';
let slotsInUse = 0;
const waitingForSlot: Array<() => void> = [];
/** Pool workers reniced while screening ahead, to be given their priority back. */
let renicedWorkers: number[] | undefined;

/** How many screening rounds are running now (for tests). */
export function screeningSlotsInUse(): number {
  return slotsInUse;
}

/** Whether keys are being screened ahead of need or awaited (for tests). */
export function screeningPace(): Pace {
  return pace;
}

/** Keys are being made ahead of need while the boot goes on: deeper screening, on low-priority pool threads. */
export function screenAhead(): void {
  pace = 'ahead';
  grantWaiting();
}

/** Something now waits for the primes: back to three rounds at once (rounds already running finish). */
export function screenAwaited(): void {
  pace = 'awaited';
}

/** Screening ahead is over (the stage's modules ran): three rounds at once, and the pool's priority restored. */
export function endScreeningAhead(): void {
  pace = 'awaited';
  if (renicedWorkers) restorePoolPriority(renicedWorkers);
  renicedWorkers = undefined;
}

function grantWaiting(): void {
  while (slotsInUse < SLOTS[pace] && waitingForSlot.length > 0) waitingForSlot.shift()?.();
}

/** Runs START once a screening slot is free; START must call the release it is given exactly once. */
export function whenSlotFree(start: (release: () => void) => void): void {
  const release = (): void => {
    slotsInUse--;
    // A round has run, so the pool's workers exist now (libuv starts them with its first job).
    if (pace === 'ahead' && !renicedWorkers) {
      const workers = lowerPoolPriority();
      if (workers.length > 0) renicedWorkers = workers;
    }
    grantWaiting();
  };
  const begin = (): void => {
    slotsInUse++;
    start(release);
  };
  if (slotsInUse < SLOTS[pace]) begin();
  else waitingForSlot.push(begin);
}
