// Oversized user data: a 100 MB blob, a 100 MB MIME part and a gzip bomb each end in an error naming the part.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { processUserData } from '../../src/userdata/process-user-data';

const MB = 1024 * 1024;

test('a 100 MB user data is refused with a clear error; vendor data still processed', async () => {
  const big = Buffer.alloc(100 * MB, 'a');
  big.write('#!/bin/sh\n');
  const r = await processUserData({ userData: big, vendorData: '#cloud-config\nhostname: v\n' });
  assert.equal(r.errors.length, 1);
  assert.equal(r.errors[0]?.part, 'user-data message');
  assert.match(r.errors[0]?.message ?? '', /104857600 bytes is larger than the 33554432-byte limit for one part/);
  assert.deepEqual(r.cloudConfig, { hostname: 'v' });
  assert.deepEqual(r.scripts, []);
});

test('a 100 MB MIME part is skipped with an error naming it; the other parts run', async () => {
  const head =
    'Content-Type: multipart/mixed; boundary=B\nMIME-Version: 1.0\n\n--B\nContent-Type: text/x-shellscript\nContent-Disposition: attachment; filename="huge.sh"\n\n#!/bin/sh\n';
  const tail =
    '\n--B\nContent-Type: text/x-shellscript\nContent-Disposition: attachment; filename="small.sh"\n\n#!/bin/sh\necho ok\n--B--\n';
  const data = Buffer.concat([Buffer.from(head), Buffer.alloc(100 * MB, '#'), Buffer.from(tail)]);
  const r = await processUserData({ userData: data });
  assert.deepEqual(
    r.errors.map((e) => e.part),
    ['user-data part-001 (huge.sh)'],
  );
  assert.match(r.errors[0]?.message ?? '', /larger than the 33554432-byte limit/);
  assert.deepEqual(
    r.scripts.map((s) => s.name),
    ['small.sh'],
  );
});

test('a gzip bomb stops at the size cap', async () => {
  const bomb = gzipSync(Buffer.alloc(64 * MB, 0x41));
  const r = await processUserData({ userData: bomb }, { maxPartBytes: 8 * MB });
  assert.equal(r.errors.length, 1);
  assert.match(r.errors[0]?.message ?? '', /expands beyond the 8388608-byte limit/);
});

test('the total size limit applies to each source', async () => {
  const r = await processUserData({ userData: Buffer.alloc(2048, 'x') }, { maxTotalBytes: 1024 });
  assert.deepEqual(r.errors, [
    { part: 'user-data', message: '2048 bytes is larger than the 1024-byte limit; ignored' },
  ]);
});

test('invalid UTF-8 in cloud-config fails that part with its line and column, as PyYAML refuses it; nothing of it is applied', async () => {
  const bad = Buffer.concat([
    Buffer.from('#cloud-config\nruncmd: [true]\nhostname: bad'),
    Buffer.from([0xff, 0xfe, 0x80]),
    Buffer.from('(name\n'),
  ]);
  const r = await processUserData({ userData: bad, vendorData: '#cloud-config\nhostname: v\n' });
  assert.equal(r.errors.length, 1);
  assert.match(r.errors[0]?.message ?? '', /:3:14: invalid UTF-8 \(byte 0xff at offset 42\); it must be UTF-8 text/);
  assert.deepEqual(r.cloudConfig, { hostname: 'v' }, 'the bad part contributes nothing, vendor data still applies');
  // A real U+FFFD (EF BF BD) is text like any other.
  const real = await processUserData({ userData: '#cloud-config\nfinal_message: "a \uFFFD b"\n' });
  assert.deepEqual(real.errors, []);
  assert.deepEqual(real.cloudConfig, { final_message: 'a \uFFFD b' });
});
