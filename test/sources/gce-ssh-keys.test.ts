// GCE ssh-keys lines: cloud-init's expiry and owner rules, cloudbase-init's stricter username rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  cloudbaseKey,
  cloudInitKeyLines,
  cloudInitPublicKeys,
  hasExpired,
  parseCloudInitExpireOn,
  parseExpireOn,
  pythonSplitlines,
} from '../../src/sources/gce-ssh-keys';
import { defaultUserName } from '../../src/sources/default-user';

const NOW = new Date('2026-06-01T00:00:00Z');
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKEY';

test("cloudbase-init's expireOn is parsed as strptime does with a literal +0000: exact format, real dates only", () => {
  assert.equal(parseExpireOn('2026-05-31T23:59:59+0000')?.toISOString(), '2026-05-31T23:59:59.000Z');
  assert.equal(parseExpireOn('2026-5-1T1:2:3+0000')?.toISOString(), '2026-05-01T01:02:03.000Z');
  for (const bad of [
    '2026-02-30T00:00:00+0000',
    '2026-05-31T24:00:00+0000',
    '2026-05-31T23:59:60+0000',
    '2026-05-31T23:59:59Z',
    '2026-05-31 23:59:59+0000',
    '',
  ])
    assert.equal(parseExpireOn(bad), undefined, bad);
});

// What Python 3.13's datetime.strptime(text, '%Y-%m-%dT%H:%M:%S%z') answers (Debian 13's, cloud-init 25.1's
// _has_expired).
test("cloud-init 25.1's expireOn takes any UTC offset strptime's %z reads", () => {
  const utc: Array<[string, string]> = [
    ['2020-01-01T00:00:00Z', '2020-01-01T00:00:00.000Z'],
    ['2020-01-01T00:00:00+0000', '2020-01-01T00:00:00.000Z'],
    ['2020-01-01T00:00:00+00:00', '2020-01-01T00:00:00.000Z'],
    ['2020-01-01T00:00:00+0100', '2019-12-31T23:00:00.000Z'],
    ['2020-01-01T00:00:00-01:30:15.5', '2020-01-01T01:30:15.500Z'],
    ['2020-01-01T00:00:00+013015', '2019-12-31T22:29:45.000Z'],
    ['2026-5-1t1:2:3+0000', '2026-05-01T01:02:03.000Z'],
    ['2026-05- 1T00:00:00Z', '2026-05-01T00:00:00.000Z'],
    ['0099-01-01T00:00:00Z', '0099-01-01T00:00:00.000Z'],
  ];
  for (const [text, iso] of utc) assert.equal(parseCloudInitExpireOn(text)?.toISOString(), iso, text);
  const refused = [
    '2020-01-01T00:00:00z',
    '2020-01-01T00:00:00+01',
    '2020-01-01T00:00:00+01:0030',
    '2020-01-01T00:00:00+0100:30',
    '2020-01-01T00:00:00+2400',
    '2020-01-01T00:00:60+0000',
    '2020-02-30T00:00:00Z',
    '2020-01-01T00:00:00 +0000',
    '0000-01-01T00:00:00Z',
    '2020-01-01T00:00:00',
  ];
  for (const text of refused) assert.equal(parseCloudInitExpireOn(text), undefined, text);
  assert.equal(hasExpired(`${KEY} google-ssh {"expireOn":"2026-05-31T23:59:59Z"}`, NOW), true, 'Z is UTC');
  assert.equal(
    hasExpired(`${KEY} google-ssh {"expireOn":"2026-06-01T01:00:00+02:00"}`, NOW),
    true,
    'an offset moves the instant',
  );
});

test('only four-field google-ssh keys with a past expireOn expire', () => {
  assert.equal(hasExpired(`${KEY} google-ssh {"userName":"a","expireOn":"2026-05-31T23:59:59+0000"}`, NOW), true);
  assert.equal(hasExpired(`${KEY} google-ssh {"userName":"a","expireOn":"2026-06-01T00:00:01+0000"}`, NOW), false);
  assert.equal(
    hasExpired(`  ${KEY}   google-ssh   {"expireOn": "2020-01-01T00:00:00+0000"}`, NOW),
    true,
    'runs of blanks separate fields',
  );
  assert.equal(hasExpired(`${KEY} google-ssh`, NOW), false);
  assert.equal(hasExpired(`${KEY} comment`, NOW), false);
});

test('cloud-init keeps keys of cloudinit and the default user, ASCII only', () => {
  const lines = pythonSplitlines(`debian:${KEY} a\nroot:${KEY} b\ncloudinit:${KEY} c\ndebian:${KEY} é\nno-colon\n`);
  assert.deepEqual(cloudInitPublicKeys(lines, 'debian', NOW), [`${KEY} a`, `${KEY} c`]);
  assert.deepEqual(cloudInitPublicKeys(lines, undefined, NOW), [`${KEY} c`]);
});

test('cloud-init key sources: block-project-ssh-keys and legacy sshKeys hide the project', () => {
  const project = { 'ssh-keys': 'p1', sshKeys: 'p2' };
  assert.deepEqual(cloudInitKeyLines({ 'ssh-keys': 'i1' }, project), ['i1', 'p1', 'p2']);
  assert.deepEqual(cloudInitKeyLines({ 'ssh-keys': 'i1', 'block-project-ssh-keys': 'True' }, project), ['i1']);
  assert.deepEqual(cloudInitKeyLines({ sshKeys: 'i0', 'ssh-keys': 'i1' }, project), ['i0', 'i1']);
  assert.deepEqual(cloudInitKeyLines({}, {}), []);
});

test('cloudbase-init: header, comment or userName must all be the configured username', () => {
  assert.deepEqual(cloudbaseKey(`Admin:${KEY} Admin`, 'Admin', NOW), { key: `${KEY} Admin` });
  assert.deepEqual(
    cloudbaseKey(`Admin:${KEY} google-ssh {"userName":"Admin","expireOn":"2030-01-01T00:00:00+0000"}`, 'Admin', NOW),
    { key: `${KEY} Admin` },
  );
  assert.match(
    JSON.stringify(
      cloudbaseKey(`Admin:${KEY} google-ssh {"userName":"Admin","expireOn":"2020-01-01T00:00:00+0000"}`, 'Admin', NOW),
    ),
    /expired/,
  );
  assert.deepEqual(
    cloudbaseKey(`Admin:${KEY} google-ssh {"userName":"Admin","expireOn":"soon"}`, 'Admin', NOW),
    { key: `${KEY} Admin` },
    'an unparseable date keeps the key',
  );
  assert.match(JSON.stringify(cloudbaseKey(`Admin:${KEY} bob`, 'Admin', NOW)), /non matching username/);
  assert.match(JSON.stringify(cloudbaseKey(`bob:${KEY} bob`, 'Admin', NOW)), /non matching username/);
  assert.match(JSON.stringify(cloudbaseKey(`Admin:${KEY}`, 'Admin', NOW)), /invalid SSH key/);
  assert.equal(cloudbaseKey('   ', 'Admin', NOW), undefined);
});

test('the default user is the one `users` lists as default', () => {
  const sys = { system_info: { default_user: { name: 'debian' } } };
  assert.equal(defaultUserName({ ...sys, users: ['default'] }), 'debian');
  assert.equal(defaultUserName({ ...sys, users: 'default, bob' }), 'debian');
  assert.equal(defaultUserName({ ...sys, users: [{ name: 'bob' }] }), undefined);
  assert.equal(defaultUserName({ ...sys, user: 'ubuntu' }), 'ubuntu');
  assert.equal(defaultUserName({ ...sys, user: { name: 'ops' }, users: [] }), 'ops');
  assert.equal(defaultUserName({ users: ['default'] }), undefined);
});
