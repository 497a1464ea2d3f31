import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Logger, MemorySink, formatLogLine } from '../../src/util/log';
import { REDACTED, redactSecretKeys } from '../../src/util/redact';

test("log lines have cloud-init's format", () => {
  const line = formatLogLine(new Date(2026, 10, 22, 3, 4, 5, 67), 'stages.ts', 'INFO', 'hello');
  assert.equal(line, '2026-11-22 03:04:05,067 - stages.ts[INFO]: hello\n');
  assert.match(line, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - [\w.-]+\[(DEBUG|INFO|WARNING|ERROR|CRITICAL)\]: /);
});

test('sinks get only lines at or above their level, with secrets scrubbed', () => {
  const logger = new Logger();
  const all = new MemorySink('DEBUG');
  const warn = new MemorySink('WARNING');
  logger.addSink(all);
  logger.addSink(warn);
  logger.redactor.add('hunter22');
  const log = logger.for('test.ts');
  log.debug('password is hunter22');
  log.warn('careful');
  assert.equal(all.lines.length, 2);
  assert.equal(warn.lines.length, 1);
  assert.ok(!all.lines.join('').includes('hunter22'));
  assert.ok(all.lines[0]?.includes(REDACTED));
});

test('secret keys are redacted at any depth', () => {
  const out = redactSecretKeys({
    a: 1,
    admin_pass: 'x',
    nested: [{ 'security-credentials': { k: 'v' } }, { token: 't', ok: 'y' }],
  });
  assert.deepEqual(out, {
    a: 1,
    admin_pass: REDACTED,
    nested: [{ 'security-credentials': REDACTED }, { token: REDACTED, ok: 'y' }],
  });
});
