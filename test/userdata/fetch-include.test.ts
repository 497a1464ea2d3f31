// The #include fetcher against a mock server on 127.0.0.1 that misbehaves: redirects, loops, big, stalled and cut
// bodies.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { httpIncludeFetcher } from '../../src/userdata/fetch-include';

let server: Server;
let base = '';

before(async () => {
  server = createServer((req, res) => {
    switch (req.url) {
      case '/ok':
        res.end('#cloud-config\na: 1\n');
        return;
      case '/moved':
        res.writeHead(301, { location: '/ok' }).end();
        return;
      case '/loop':
        res.writeHead(302, { location: '/loop' }).end();
        return;
      case '/big-declared':
        res.writeHead(200, { 'content-length': String(2 * 1024 * 1024) });
        res.end(Buffer.alloc(2 * 1024 * 1024));
        return;
      case '/big-chunked':
        res.writeHead(200);
        for (let i = 0; i < 40; i++) res.write(Buffer.alloc(64 * 1024));
        res.end();
        return;
      case '/stall':
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial'); // then nothing: the deadline must end it
        return;
      case '/cut':
        res.writeHead(200, { 'content-length': '100' });
        res.write('partial', () => res.socket?.destroy());
        return;
      case '/503':
        res.writeHead(503).end();
        return;
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const fetch = () => httpIncludeFetcher({ timeoutMs: 1000, maxBytes: 1024 * 1024, maxRedirects: 3 });

test('a plain answer and a redirect are fetched', async () => {
  assert.equal(Buffer.from(await fetch()(`${base}/ok`)).toString(), '#cloud-config\na: 1\n');
  assert.equal(Buffer.from(await fetch()(`${base}/moved`)).toString(), '#cloud-config\na: 1\n');
});

test('misbehaving servers end in clear errors', async () => {
  await assert.rejects(fetch()(`${base}/loop`), /more than 3 redirects/);
  await assert.rejects(fetch()(`${base}/big-declared`), /2097152 bytes exceeds the 1048576-byte limit/);
  await assert.rejects(fetch()(`${base}/big-chunked`), /body exceeds the 1048576-byte limit/);
  await assert.rejects(fetch()(`${base}/stall`), /not complete within 1000 ms|no answer within 1000 ms/);
  await assert.rejects(fetch()(`${base}/cut`), /reading the body failed|request failed/);
  await assert.rejects(fetch()(`${base}/503`), /HTTP 503/);
  await assert.rejects(fetch()(`${base}/nothing`), /HTTP 404/);
  await assert.rejects(fetch()('file:///etc/passwd'), /only http and https URLs/);
  await assert.rejects(fetch()('not a url'), /is not a URL/);
});
