// The thread pool gets a thread per CPU (at least two) unless UV_THREADPOOL_SIZE says otherwise.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { poolThreads, sizeThreadPool } from '../../src/util/thread-pool';

test('a thread per CPU, at least two, unless UV_THREADPOOL_SIZE is set', () => {
  assert.equal(poolThreads(1), '2');
  assert.equal(poolThreads(2), '2');
  assert.equal(poolThreads(8), '8');
  const env: NodeJS.ProcessEnv = {};
  sizeThreadPool(env, 4);
  assert.equal(env.UV_THREADPOOL_SIZE, '4');
  const mine: NodeJS.ProcessEnv = { UV_THREADPOOL_SIZE: '16' };
  sizeThreadPool(mine, 4);
  assert.equal(mine.UV_THREADPOOL_SIZE, '16');
});
