// The one reader of a datasource's JSON document (a metadata answer, a file on a config disk, a serial reply): parse
// it, or refuse it with where it came from.
import type { HttpResponse } from '../util/http';
import { SourceError } from './source-error';
import { describeError } from '../util/errors';

/** A JSON text that did not come over HTTP, and what to call it in an error (a path, a device). */
export interface JsonText {
  text: string | Uint8Array;
  where: string;
}

/**
 * Who refuses a bad document: a source's name (a plain SourceError), or a function for a source that
 * marks the error (a class of its own, a `final` flag) or puts the reason under a heading of its own.
 */
export type JsonRefusal = string | ((reason: string, cause?: unknown) => SourceError);

function refuse(by: JsonRefusal, reason: string, cause?: unknown): SourceError {
  return typeof by === 'string'
    ? new SourceError(by, reason, cause === undefined ? undefined : { cause })
    : by(reason, cause);
}

function isResponse(doc: HttpResponse | JsonText): doc is HttpResponse {
  return 'headers' in doc;
}

/**
 * DOC parsed as JSON, any value. A URL's answer that is not JSON is refused with its URL and content type
 * (an HTML portal or proxy page is the usual reason, and its content type says so); a text with its name.
 */
export function parseJson(by: JsonRefusal, doc: HttpResponse | JsonText): unknown {
  const where = isResponse(doc) ? doc.url : doc.where;
  const text = isResponse(doc)
    ? doc.text()
    : typeof doc.text === 'string'
      ? doc.text
      : Buffer.from(doc.text).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const served = isResponse(doc) ? ` (content-type ${doc.headers['content-type'] ?? 'none'})` : '';
    throw refuse(by, `${where} is not JSON${served}: ${describeError(err)}`, err);
  }
}

/** What a JSON value is, for the refusal of one that should be an object. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * DOC parsed as a JSON object (the shape every metadata document has), refused as parseJson does or as another kind of
 * value.
 */
export function parseJsonObject(by: JsonRefusal, doc: HttpResponse | JsonText): Record<string, unknown> {
  const value = parseJson(by, doc);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw refuse(by, `${isResponse(doc) ? doc.url : doc.where} is not a JSON object but ${kindOf(value)}`);
  return value as Record<string, unknown>;
}
