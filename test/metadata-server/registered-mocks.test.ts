// The mock clouds `devel serve-metadata` serves are the ones the sources register (Datasource.mock): the kind list is
// derived from the registry, and src/metadata-server/ holds the generic server only.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SERVE_KINDS } from '../../src/metadata-server/serve-kinds';
import { DATASOURCES, WINDOWS_ONLY_SOURCES } from '../../src/sources/registry';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { REPO } from '../helpers/repo';
import { tempDir } from '../helpers/temp';

test("the kinds served are the sources' registered mocks, in the registry's order, each word once", () => {
  const registered = [...DATASOURCES, ...WINDOWS_ONLY_SOURCES].flatMap((s) => (s.mock ? [s.mock.kind] : []));
  assert.ok(registered.length >= 20, `${registered.length} sources register a mock`);
  assert.deepEqual(
    SERVE_KINDS.map((k) => k.kind),
    registered,
  );
  assert.equal(new Set(registered).size, registered.length, 'a --kind word names one cloud');
});

test('src/metadata-server/ holds the generic server: no file per cloud', () => {
  const files = readdirSync(join(REPO, 'src', 'metadata-server')).sort();
  assert.deepEqual(files, [
    'metadata-server.ts',
    'mock-files.ts',
    'password-server.ts',
    'request-body.ts',
    'serial-hosts.ts',
    'serve-kinds.ts',
  ]);
});

test('every HTTP kind starts, serves its folder through its registered answers, and refuses a kind no source registers', async (t) => {
  const dir = tempDir(t, 'registered-mocks-');
  for (const k of SERVE_KINDS) {
    if (k.transport !== 'http') continue;
    const server = await mockMetadataServer(t, { kind: k.kind, dir });
    const res = await fetch(`${server.url}/no/such/path`);
    await res.arrayBuffer();
    assert.ok(res.status >= 400, `${k.kind}: ${res.status} for a path its folder does not have`);
  }
  await assert.rejects(
    mockMetadataServer(t, { kind: 'nosuchcloud', dir }),
    /no HTTP metadata service of kind 'nosuchcloud'/,
  );
});
