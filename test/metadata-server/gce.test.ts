// The mock GCE metadata server's rules: the Metadata-Flavor header both ways, listings, recursive JSON, guest
// attributes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { gceSource, publishGceHostKeys } from '../../src/sources/gce';
import { Logger } from '../../src/util/log';
import { FIXTURES } from '../helpers/repo';
import { mockMetadataServer } from '../helpers/mock-metadata-server';

const TREE = join(FIXTURES, 'sources', 'gce', 'happy-path', 'tree');
const G = { 'Metadata-Flavor': 'Google' };

test('gce mock: 403 without Metadata-Flavor: Google (or with X-Forwarded-For), and the header on answers', async (t) => {
  const s = await mockMetadataServer(t, { kind: 'gce', dir: TREE });
  const bare = await fetch(`${s.url}/computeMetadata/v1/instance/id`);
  assert.equal(bare.status, 403);
  const wrong = await fetch(`${s.url}/computeMetadata/v1/instance/id`, { headers: { 'Metadata-Flavor': 'google' } });
  assert.equal(wrong.status, 403);
  const forwarded = await fetch(`${s.url}/computeMetadata/v1/instance/id`, {
    headers: { ...G, 'X-Forwarded-For': '10.0.0.1' },
  });
  assert.equal(forwarded.status, 403);
  const ok = await fetch(`${s.url}/computeMetadata/v1/instance/id`, { headers: G });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('metadata-flavor'), 'Google');
  assert.equal(await ok.text(), '5822432891731066937');
  assert.equal(
    (await fetch(`${s.url}/instance/id`, { headers: G })).status,
    404,
    'only /computeMetadata/v1/ is served',
  );
  assert.equal((await fetch(`${s.url}/computeMetadata/v1/instance/nope`, { headers: G })).status, 404);
});

test('gce mock: folders list their entries; ?recursive=true (any case) answers JSON', async (t) => {
  const s = await mockMetadataServer(t, { kind: 'gce', dir: TREE });
  const listing = await (await fetch(`${s.url}/computeMetadata/v1/instance/`, { headers: G })).text();
  assert.deepEqual(listing.trim().split('\n'), ['attributes/', 'hostname', 'id', 'name', 'zone']);
  const res = await fetch(`${s.url}/computeMetadata/v1/project/attributes/?recursive=True`, { headers: G });
  assert.equal(res.headers.get('content-type'), 'application/json');
  const json = (await res.json()) as Record<string, string>;
  assert.deepEqual(Object.keys(json), ['ssh-keys', 'sshKeys']);
  assert.match(json['ssh-keys'] ?? '', /^debian:ssh-ed25519 /);
  const whole = (await (
    await fetch(`${s.url}/computeMetadata/v1/instance?recursive=true`, { headers: G })
  ).json()) as Record<string, unknown>;
  assert.equal(whole.id, '5822432891731066937');
  assert.equal(typeof whole.attributes, 'object');
});

test('gce mock: guest attributes take a PUT and answer it back', async (t) => {
  const s = await mockMetadataServer(t, { kind: 'gce', dir: TREE });
  const url = `${s.url}/computeMetadata/v1/instance/guest-attributes/hostkeys/ssh-ed25519`;
  assert.equal((await fetch(url, { headers: G })).status, 404);
  assert.equal((await fetch(url, { method: 'PUT', headers: G, body: 'AAAAC3Nz' })).status, 200);
  assert.equal(await (await fetch(url, { headers: G })).text(), 'AAAAC3Nz');
  assert.equal((await fetch(url, { method: 'PUT', body: 'x' })).status, 403, 'the header is needed for PUTs too');
});

test("publishGceHostKeys: cloud-init's PUT of each host key to instance/guest-attributes/hostkeys/<type>, refusals only logged", async (t) => {
  const s = await mockMetadataServer(t, { kind: 'gce', dir: TREE });
  const log = new Logger().for('test');
  const settings = { metadata_url: `${s.url}/computeMetadata/v1/` };
  await publishGceHostKeys({ log, settings }, [
    { type: 'ssh-ed25519', value: 'AAAAC3Nzed' },
    { type: 'ssh-rsa', value: 'AAAAB3Nzrsa' },
  ]);
  for (const [type, value] of [
    ['ssh-ed25519', 'AAAAC3Nzed'],
    ['ssh-rsa', 'AAAAB3Nzrsa'],
  ]) {
    const res = await fetch(`${s.url}/computeMetadata/v1/instance/guest-attributes/hostkeys/${type}`, { headers: G });
    assert.equal(await res.text(), value);
  }
  const puts = s.requests.filter((q) => q.method === 'PUT');
  assert.equal(puts.length, 2);
  assert.ok(puts.every((q) => q.headers['metadata-flavor'] === 'Google'));
  // A server that refuses (check_status=False in cloud-init) is no error.
  const refusing = await mockMetadataServer(t, { kind: 'gce', dir: TREE, misbehave: [{ kind: 'status', value: 403 }] });
  await publishGceHostKeys({ log, settings: { metadata_url: `${refusing.url}/computeMetadata/v1/` } }, [
    { type: 'ssh-rsa', value: 'x' },
  ]);
  // The found GCE source publishes through the same function.
  assert.equal(typeof gceSource.publishHostKeys, 'function');
});
