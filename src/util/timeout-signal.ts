// Deadlines as AbortSignals that fire even when nothing but the combined signal refers to them.
//
// Not AbortSignal.any([AbortSignal.timeout(ms), parent]): Node 20 holds the sources of any() weakly, so a timeout
// signal that no variable keeps is garbage-collected and never fires (seen: an Azure pool wait of 1.5 s that ran
// until its parent's 30 s). Node 22, which the binaries run, holds them; the tests run on the host's Node.

/** AbortSignal.timeout(MS), kept alive by its own timer until it fires (unref'd: it never holds the process open). */
export function timeoutSignal(ms: number): AbortSignal {
  const ctl = new AbortController();
  const timer = setTimeout(
    () => ctl.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    Math.max(0, ms),
  );
  timer.unref();
  return ctl.signal;
}

/** A signal that aborts after MS or with PARENT, whichever comes first. */
export function deadlineSignal(ms: number, parent?: AbortSignal): AbortSignal {
  const own = timeoutSignal(ms);
  return parent ? AbortSignal.any([own, parent]) : own;
}

/** deadlineSignal, except that a budget of zero or less means no limit beyond PARENT. */
export function budgetSignal(ms: number, parent?: AbortSignal): AbortSignal | undefined {
  return ms > 0 ? deadlineSignal(ms, parent) : parent;
}
