// A seeded fuzz run of every text and message parser in `npm test` (issue 23): 300 mutants per parser plus the
// hostile inputs (deep nesting, bombs, invalid UTF-8, huge documents); `npm run soak -- fuzz` runs 100 000 per
// parser. Each must end with a result or a clear KilnError, in bounded time and memory.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { isMainThread, workerData } from 'node:worker_threads';
import { FUZZ_TARGETS, fuzzTarget, fuzzWorkerMain } from '../helpers/parser-fuzz';

const ITERATIONS = 300;
const SEED = 0x5eed2311;

if (!isMainThread) {
  fuzzWorkerMain(workerData as { target: string; iterations: number; seed: number });
} else {
  for (const target of FUZZ_TARGETS) {
    test(`fuzz ${target.name}: ${ITERATIONS} mutants and the hostile inputs, no crash, hang or runaway memory`, {
      timeout: 10 * 60_000,
    }, async () => {
      const result = await fuzzTarget(fileURLToPath(import.meta.url), target.name, ITERATIONS, SEED);
      assert.equal(result.kind, 'done', `fuzz ${target.name} failed: ${JSON.stringify(result, null, 2)}`);
    });
  }
}
