// Byte-level decoding of user data: gzip (whole or per part), base64, charsets.
import { promisify } from 'node:util';
import { zlib } from '../util/on-demand-builtins';

export function isGzip(data: Uint8Array): boolean {
  return data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b;
}

/** Decompresses gzip; a truncated or corrupt stream throws with zlib's reason. MAX_BYTES caps the output. */
export async function gunzipBytes(data: Uint8Array, maxBytes: number): Promise<Buffer> {
  try {
    return await promisify(zlib().gunzip)(data, { maxOutputLength: maxBytes });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_BUFFER_TOO_LARGE' || /maxOutputLength|Cannot create a Buffer larger/.test(e.message)) {
      throw new Error(`gzip data expands beyond the ${maxBytes}-byte limit`);
    }
    if (e.code === 'Z_BUF_ERROR') throw new Error('gzip data is truncated (unexpected end of stream)');
    throw new Error(`gzip data is corrupt (${e.message})`);
  }
}

/** Strict base64: only the alphabet, whitespace and padding, else an error (a silent partial decode hides mistakes). */
export function decodeBase64(text: string): Buffer {
  const clean = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean))
    throw new Error('base64 content holds characters outside the base64 alphabet');
  return Buffer.from(clean, clean.includes('-') || clean.includes('_') ? 'base64url' : 'base64');
}

/** Quoted-printable (RFC 2045) to bytes. */
export function decodeQuotedPrintable(text: string): Buffer {
  const bytes: number[] = [];
  const s = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      for (const b of Buffer.from(c, 'latin1')) bytes.push(b);
    }
  }
  return Buffer.from(bytes);
}

/** Text of BYTES in CHARSET (utf-8 default); a BOM is dropped. Unknown charsets fall back to utf-8. */
export function bytesToText(bytes: Uint8Array, charset = 'utf-8'): string {
  const cs = charset.toLowerCase();
  let label = cs;
  if (cs === 'us-ascii' || cs === 'ascii') label = 'utf-8';
  try {
    return new TextDecoder(label, { ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes); // a charset TextDecoder does not know: read as UTF-8
  }
}
