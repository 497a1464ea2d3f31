// The digitalocean and hetzner kinds of the mock metadata service answer as the real services do.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { readYaml } from '../../src/config/read-yaml';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
};

test('hetzner: the metadata document, its keys as paths (scalars as text, the rest as YAML), 404 for a missing key, 204 for no user data', async (t) => {
  const server = await mockMetadataServer(t, {
    kind: 'hetzner',
    dir: join(FIXTURES, 'sources/hetzner/happy-path/tree'),
  });
  const api = `${server.url}/hetzner/v1`;
  assert.match((await get(`${api}/metadata`)).body, /^hostname: my-server$/m);
  assert.deepEqual(await get(`${api}/metadata/instance-id`), { status: 200, type: 'text/plain', body: '42' });
  const pn = await get(`${api}/metadata/private-networks`);
  assert.equal(pn.status, 200);
  assert.deepEqual(readYaml(pn.body, 'private-networks'), [
    {
      ip: '10.1.0.2',
      alias_ips: [],
      interface_num: 2,
      mac_address: '86:00:00:aa:5d:f8',
      network_id: 11352901,
      network_name: 'network-2',
      network: '10.1.0.0/16',
      subnet: '10.1.0.0/24',
      gateway: '10.1.0.1',
    },
  ]);
  assert.equal((await get(`${api}/metadata/network-config/version`)).body, '1');
  assert.equal((await get(`${api}/metadata/no-such-key`)).status, 404);
  assert.match((await get(`${api}/userdata`)).body, /^#cloud-config/);
  const empty = await mockMetadataServer(t, {
    kind: 'hetzner',
    dir: join(FIXTURES, 'sources/hetzner/no-user-data/tree'),
  });
  assert.deepEqual(await get(`${empty.url}/hetzner/v1/userdata`), { status: 204, type: 'text/plain', body: '' });
});

test('digitalocean: metadata/v1.json as application/json, and its keys below metadata/v1/ as text', async (t) => {
  const server = await mockMetadataServer(t, {
    kind: 'digitalocean',
    dir: join(FIXTURES, 'sources/digitalocean/happy-path/tree'),
  });
  const json = await get(`${server.url}/metadata/v1.json`);
  assert.equal(json.type, 'application/json');
  assert.equal((JSON.parse(json.body) as { droplet_id: number }).droplet_id, 2756294);
  assert.equal((await get(`${server.url}/metadata/v1/hostname`)).body, 'sample-droplet');
  assert.equal((await get(`${server.url}/metadata/v1/interfaces/public/0/ipv4/ip_address`)).body, '104.131.20.105');
  assert.equal((await get(`${server.url}/metadata/v1/interfaces/`)).body, 'private/\npublic/');
  assert.equal(
    (await get(`${server.url}/metadata/v1/dns/nameservers`)).body,
    '2001:4860:4860::8844\n2001:4860:4860::8888\n8.8.8.8',
  );
  assert.equal((await get(`${server.url}/metadata/v1/nope`)).status, 404);
});

test('wrong-type: 200 with an HTML page where metadata should be', async (t) => {
  const server = await mockMetadataServer(t, {
    kind: 'digitalocean',
    dir: join(FIXTURES, 'sources/digitalocean/happy-path/tree'),
    misbehave: [{ kind: 'wrong-type', times: 1 }],
  });
  const first = await get(`${server.url}/metadata/v1.json`);
  assert.deepEqual([first.status, first.type], [200, 'text/html']);
  assert.match(first.body, /<html>/);
  assert.equal((await get(`${server.url}/metadata/v1.json`)).type, 'application/json');
});
