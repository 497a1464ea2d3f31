// Splits cloudbase-init user data into parts: gzip is undone, MIME multipart is split, anything else is one part.
import { gunzipSync } from 'node:zlib';
import { PluginError } from './plugin';

export interface UserDataPart {
  /** The part's Content-Type, or undefined for plain (non-MIME) user data. */
  contentType: string | undefined;
  filename: string | undefined;
  body: string;
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** Undoes gzip when the bytes start with its magic number (cloudbase-init accepts compressed user data). */
export function maybeGunzip(bytes: Uint8Array): Uint8Array {
  if (bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1]) {
    try {
      // Synchronous: user data is small and this runs once per boot.
      return gunzipSync(bytes);
    } catch (err) {
      throw new PluginError('UserDataPlugin', `user data starts like gzip but does not decompress: ${(err as Error).message}`, { cause: err });
    }
  }
  return bytes;
}

function headerValue(headers: string, name: string): string | undefined {
  const m = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(headers);
  return m ? (m[1] as string).replace(/\r?\n[ \t]+/g, ' ').trim() : undefined;
}

function param(value: string | undefined, name: string): string | undefined {
  if (!value) return undefined;
  const m = new RegExp(`${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i').exec(value);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Splits TEXT into parts; nested multiparts are flattened, base64 and quoted-printable bodies decoded. */
export function splitUserData(text: string): UserDataPart[] {
  const headerEnd = /\r?\n\r?\n/.exec(text);
  const headers = headerEnd ? text.slice(0, headerEnd.index) : '';
  const contentType = /^content-type:/im.test(headers) ? headerValue(headers, 'Content-Type') : undefined;
  if (!contentType || !/^multipart\//i.test(contentType)) return [{ contentType: undefined, filename: undefined, body: text }];
  return splitMultipart(text.slice((headerEnd as RegExpExecArray).index + (headerEnd as RegExpExecArray)[0].length), contentType);
}

function splitMultipart(body: string, contentType: string): UserDataPart[] {
  const boundary = param(contentType, 'boundary');
  if (!boundary) throw new PluginError('UserDataPlugin', `multipart user data without a boundary in '${contentType}'`);
  const parts: UserDataPart[] = [];
  const chunks = body.split(new RegExp(`^--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(--)?[ \\t]*\\r?$`, 'm'));
  // chunks: preamble, part, undefined/'--', part, … ; the captured group interleaves.
  for (let i = 1; i < chunks.length; i += 2) {
    const raw = chunks[i + 1];
    if (chunks[i] === '--' || raw === undefined) break;
    const chunk = raw.replace(/^\r?\n/, '');
    const end = /\r?\n\r?\n/.exec(chunk);
    const headers = end ? chunk.slice(0, end.index) : '';
    let partBody = end ? chunk.slice(end.index + end[0].length) : chunk;
    partBody = partBody.replace(/\r?\n$/, '');
    const type = headerValue(headers, 'Content-Type') ?? 'text/plain';
    const encoding = headerValue(headers, 'Content-Transfer-Encoding')?.toLowerCase();
    if (encoding === 'base64') partBody = Buffer.from(partBody.replace(/\s+/g, ''), 'base64').toString('utf8');
    else if (encoding === 'quoted-printable') partBody = partBody.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
    if (/^multipart\//i.test(type)) {
      parts.push(...splitMultipart(partBody, type));
      continue;
    }
    const disposition = headerValue(headers, 'Content-Disposition');
    parts.push({ contentType: type.split(';')[0]?.trim().toLowerCase(), filename: param(disposition, 'filename') ?? param(type, 'name'), body: partBody });
  }
  return parts;
}
