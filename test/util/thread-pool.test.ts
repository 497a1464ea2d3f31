import assert from 'node:assert/strict';
import { test } from 'node:test';
import { widenThreadPool } from '../../src/util/thread-pool';

test('the thread pool is widened unless UV_THREADPOOL_SIZE is set', () => {
  const env: NodeJS.ProcessEnv = {};
  widenThreadPool(env);
  assert.equal(env.UV_THREADPOOL_SIZE, '16');
  const mine: NodeJS.ProcessEnv = { UV_THREADPOOL_SIZE: '2' };
  widenThreadPool(mine);
  assert.equal(mine.UV_THREADPOOL_SIZE, '2');
});
