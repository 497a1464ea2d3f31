import assert from 'node:assert/strict';
import { pbkdf2 } from 'node:crypto';
import { test } from 'node:test';
import { eventLoopTurnIfDue } from '../../src/util/event-loop-turns';

/** Busy for MS milliseconds without giving the event loop a turn. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    /* synchronous work */
  }
}

test('a run of calls that await only settled promises lets the event loop turn every few milliseconds', async () => {
  let poolJobDoneAt: number | undefined;
  pbkdf2('secret', 'salt', 1, 32, 'sha256', () => (poolJobDoneAt = performance.now()));
  const start = performance.now();
  let turns = 0;
  // Forty calls of 1 ms each, like synchronous file calls behind an async interface.
  for (let i = 0; i < 40; i++) {
    busy(1);
    const turn = eventLoopTurnIfDue();
    if (turn) {
      turns++;
      await turn;
    } else await Promise.resolve();
  }
  const end = performance.now();
  assert.ok(poolJobDoneAt !== undefined && poolJobDoneAt < end - 20, 'the thread-pool job was handled early in the run, not after it');
  assert.ok(turns >= 10 && turns <= 40, `a turn about every 2 ms, saw ${turns} in ${(end - start).toFixed(0)} ms`);
});

test('no turn is taken when the last one was just now', async () => {
  await eventLoopTurnIfDue();
  busy(3);
  const first = eventLoopTurnIfDue();
  assert.ok(first, 'due after 3 ms');
  assert.equal(eventLoopTurnIfDue(), undefined, 'not due again right away');
  await first;
});
