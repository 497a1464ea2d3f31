// KILN_POSIX_SPAWN=0 takes kiln back to Node's spawn: the opt-out of posix_spawn that issue 19 keeps for images
// or emulators where posix_spawn misbehaves.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFacts } from '../../src/build-info';
import { createPlatform, posixSpawnWanted } from '../../src/platform/create-platform';
import { Logger, MemorySink } from '../../src/util/log';
import { need } from '../helpers/requirements';

test('KILN_POSIX_SPAWN=0, false, no and off opt out; anything else, or nothing, keeps posix_spawn', () => {
  for (const off of ['0', 'false', 'no', 'off', 'OFF', ' 0 '])
    assert.equal(posixSpawnWanted({ KILN_POSIX_SPAWN: off }), false, off);
  for (const on of [undefined, '', '1', 'yes', 'true'])
    assert.equal(posixSpawnWanted({ KILN_POSIX_SPAWN: on }), true, String(on));
});

/** Runs `true` through a fresh platform with ENV and returns the platform's debug log. */
async function startOne(env: NodeJS.ProcessEnv): Promise<string[]> {
  const logger = new Logger();
  const sink = new MemorySink('DEBUG');
  logger.addSink(sink);
  const platform = createPlatform({ root: '/', dryRun: false, log: logger.for('platform.ts'), facts: buildFacts, env });
  const r = await platform.run(['true']);
  assert.equal(r.code, 0);
  return sink.lines;
}

test('with the opt-out a command starts with Node spawn and koffi is never loaded for it', {
  skip: process.platform !== 'linux',
}, async (t) => {
  if (!need(t, process.env.KILN_KOFFI_ADDON !== undefined, 'KILN_KOFFI_ADDON is not set (npm test sets it)')) return;
  const withSpawn = await startOne({ ...process.env, KILN_POSIX_SPAWN: undefined });
  assert.ok(
    withSpawn.some((l) => l.includes('commands are started with posix_spawn')),
    withSpawn.join(''),
  );
  const optedOut = await startOne({ ...process.env, KILN_POSIX_SPAWN: '0' });
  assert.ok(!optedOut.some((l) => l.includes('posix_spawn')), optedOut.join(''));
});
