// Deadline signals fire even after a garbage collection, when only the combined signal is held (Node 20's
// AbortSignal.any holds its sources weakly: a bare AbortSignal.timeout source was collected and never fired).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { budgetSignal, deadlineSignal, timeoutSignal } from '../../src/util/timeout-signal';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Resolves with the reason SIGNAL aborts with, collecting garbage while it waits. */
function reasonOf(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    const collect = setInterval(gc, 10);
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(collect);
        resolve(signal.reason);
      },
      { once: true },
    );
  });
}

test("a deadline under a long-lived parent fires by its own timer, not the parent's, across garbage collections", async () => {
  const parent = new AbortController();
  // The parent's reason comes only after 5 s, a timer queued after the 50 ms one: whatever the load, the deadline's
  // reason wins unless its timer was lost.
  const late = setTimeout(() => parent.abort(new Error('the parent')), 5_000);
  try {
    const signal = deadlineSignal(50, parent.signal);
    gc();
    const reason = await reasonOf(signal);
    assert.equal((reason as Error).name, 'TimeoutError', `aborted by ${String(reason)}`);
  } finally {
    clearTimeout(late);
  }
});

test('the parent still aborts a deadline first when it aborts first', async () => {
  const parent = new AbortController();
  const signal = deadlineSignal(60_000, parent.signal);
  parent.abort(new Error('stage budget'));
  assert.equal(signal.aborted, true);
  assert.equal((signal.reason as Error).message, 'stage budget');
});

test('a budget of zero is no limit beyond the parent; a timeout signal alone fires with a TimeoutError', async () => {
  const parent = new AbortController().signal;
  assert.equal(budgetSignal(0, parent), parent);
  assert.equal(budgetSignal(-1), undefined);
  const alone = timeoutSignal(10);
  gc();
  assert.equal(((await reasonOf(alone)) as Error).name, 'TimeoutError');
});
