// Lets the event loop turn now and then while the main thread works through a run of calls that only await
// promises already settled (file calls made synchronously behind an async interface): without a turn, work
// finished on the thread pool meanwhile (host-key prime screening, made ahead of need) waits unhandled, and
// the pool idles, until the run ends.
import { monotonicMs } from './monotonic-clock';

/** How long the main thread may go without a turn of the event loop before a call takes one. */
const TURN_EVERY_MS = 2;

// Process-wide by nature: there is one event loop, and any caller's turn serves every other.
let lastTurnAt = monotonicMs();

/**
 * A promise that settles after one turn of the event loop (its I/O and thread-pool callbacks handled) when
 * the last such turn was TURN_EVERY_MS ago or more; otherwise undefined, and the caller goes straight on.
 */
export function eventLoopTurnIfDue(): Promise<void> | undefined {
  const now = monotonicMs();
  if (now - lastTurnAt < TURN_EVERY_MS) return undefined;
  lastTurnAt = now;
  return new Promise((resolve) => setImmediate(resolve));
}
