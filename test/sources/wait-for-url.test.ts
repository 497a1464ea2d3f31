// Endpoint probing as cloud-init's wait_for_url: refusals worth retrying (429, 5xx) are ridden out until
// max_wait, whatever `retries` says (a fleet in a 429/503 storm gave up after `retries` refusals and fell back
// to None); without max_wait, `retries` bounds the rounds; a final answer (a 4xx) ends at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitForEndpoint } from '../../src/sources/wait-for-url';
import { HttpError } from '../../src/util/http';
import { Logger } from '../../src/util/log';

const log = new Logger().for('t');
const refusing = (times: number, status: number) => {
  let calls = 0;
  const probe = async () => {
    calls++;
    if (calls <= times) throw new HttpError('http://md/latest/api/token', 'status', `HTTP ${status}`, status);
    return 'token';
  };
  return { probe, calls: () => calls };
};

test('429/503 refusals go on being retried until max_wait, past the retries count', { timeout: 60_000 }, async () => {
  const p = refusing(3, 503);
  const won = await waitForEndpoint(
    'Ec2',
    { metadataUrls: ['http://md'], timeout: 1, maxWait: 60, retries: 1 },
    p.probe,
    log,
  );
  assert.deepEqual(won, { url: 'http://md', value: 'token' });
  assert.equal(p.calls(), 4);
});

test('without max_wait, retries bounds the rounds; a 4xx is final at once', { timeout: 60_000 }, async () => {
  const storm = refusing(100, 429);
  await assert.rejects(
    waitForEndpoint('Ec2', { metadataUrls: ['http://md'], timeout: 1, maxWait: 0, retries: 1 }, storm.probe, log),
    /no answer after 2 rounds/,
  );
  assert.equal(storm.calls(), 2);
  const gone = refusing(100, 404);
  await assert.rejects(
    waitForEndpoint('Ec2', { metadataUrls: ['http://md'], timeout: 1, maxWait: 60, retries: 5 }, gone.probe, log),
    /HTTP 404/,
  );
  assert.equal(gone.calls(), 1);
});
