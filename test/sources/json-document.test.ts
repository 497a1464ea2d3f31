// Tests of the one JSON-document reader the sources share: what it returns and how it refuses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJson, parseJsonObject } from '../../src/sources/json-document';
import { SourceError } from '../../src/sources/source-error';
import type { HttpResponse } from '../../src/util/http';

function response(text: string, contentType?: string): HttpResponse {
  const body = Buffer.from(text);
  return {
    url: 'http://127.0.0.1:1/md',
    status: 200,
    headers: contentType ? { 'content-type': contentType } : {},
    body,
    text: () => text,
  };
}

test('an object is returned as it is, from a response, a text or bytes', () => {
  assert.deepEqual(parseJsonObject('X', response('{"a": 1}')), { a: 1 });
  assert.deepEqual(parseJsonObject('X', { text: '{"b": [2]}', where: 'f.json' }), { b: [2] });
  assert.deepEqual(parseJsonObject('X', { text: Buffer.from('{"c": null}'), where: 'f.json' }), { c: null });
  assert.deepEqual(parseJson('X', { text: '[1, 2]', where: 'f.json' }), [1, 2]);
});

test('a response that is not JSON is refused with its URL and content type', () => {
  assert.throws(
    () => parseJsonObject('Vultr', response('<html>', 'text/html')),
    (err: unknown) =>
      err instanceof SourceError &&
      /^Vultr: http:\/\/127\.0\.0\.1:1\/md is not JSON \(content-type text\/html\): Unexpected token/.test(
        err.message,
      ) &&
      err.cause instanceof SyntaxError,
  );
  assert.throws(() => parseJsonObject('Vultr', response('<html>')), /\(content-type none\)/);
});

test('a text that is not JSON is refused with its name', () => {
  assert.throws(
    () => parseJson('CloudSigma', { text: 'Welcome', where: 'the server context from /dev/ttyS1' }),
    /CloudSigma: the server context from \/dev\/ttyS1 is not JSON: Unexpected token/,
  );
});

test('JSON that is not an object is refused, naming what it is', () => {
  for (const [text, kind] of [
    ['[]', 'an array'],
    ['null', 'null'],
    ['"s"', 'a string'],
    ['3', 'a number'],
  ]) {
    assert.throws(
      () => parseJsonObject('Packet', response(text as string)),
      new RegExp(`Packet: http://127\\.0\\.0\\.1:1/md is not a JSON object but ${kind}$`),
    );
  }
});

test('a function refuses in the error its source wants (a class of its own, a heading)', () => {
  class Marked extends SourceError {}
  const by = (reason: string, cause?: unknown) =>
    new Marked('IBMCloud', `Failed reading IBM config disk: ${reason}`, cause === undefined ? undefined : { cause });
  assert.throws(
    () => parseJsonObject(by, { text: '{', where: '/dev/vdb: meta_data.json' }),
    (err: unknown) =>
      err instanceof Marked &&
      /^IBMCloud: Failed reading IBM config disk: \/dev\/vdb: meta_data\.json is not JSON: /.test(err.message),
  );
  assert.throws(
    () => parseJsonObject(by, { text: '1', where: 'm' }),
    (err: unknown) => err instanceof Marked && /not a JSON object but a number/.test(err.message),
  );
});
