// Decodes a guestinfo value by its `.encoding` key (base64, gzip+base64) as cloud-init's DataSourceVMware.decode does.
import { gunzipSync } from 'node:zlib';
import type { Log } from '../../util/log';
import { SourceError } from '../source-error';
import { describeError } from '../../util/errors';

/** Decompressed guestinfo values above this are refused (a gzip bomb in a VM's config must not exhaust memory). */
const MAX_INFLATED = 64 * 1024 * 1024;

/** Strict base64: cloud-init's b64decode quietly drops stray characters; kiln names the key instead. */
function base64(where: string, text: string): Buffer {
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    throw new SourceError(
      'VMware',
      `${where} is not valid base64 (${compact.length % 4 !== 0 ? 'its length is not a multiple of 4' : 'it holds characters outside the base64 alphabet'})`,
    );
  }
  return Buffer.from(compact, 'base64');
}

/**
 * VALUE of the key WHERE (e.g. `guestinfo.userdata`) decoded by ENCODING: `base64`/`b64`, `gzip+base64`/`gz+b64`, or
 * anything else (none included) as plain text, as cloud-init. Returns the bytes.
 */
export function decodeGuestinfo(where: string, encoding: string | undefined, value: string, log: Log): Uint8Array {
  const enc = encoding?.trim();
  if (enc === 'gzip+base64' || enc === 'gz+b64') {
    const packed = base64(where, value);
    // cloud-init's decomp_gzip hands back data that is not gzip unchanged; corrupt gzip is an error here.
    if (packed[0] !== 0x1f || packed[1] !== 0x8b) {
      log.warn(`${where}: encoding ${enc} but the decoded value is not gzip; used as it is, as cloud-init does`);
      return packed;
    }
    try {
      return gunzipSync(packed, { maxOutputLength: MAX_INFLATED });
    } catch (err) {
      const why =
        (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
          ? `inflates past ${MAX_INFLATED} bytes`
          : describeError(err);
      throw new SourceError('VMware', `${where} is not valid gzip (encoding ${enc}): ${why}`);
    }
  }
  if (enc === 'base64' || enc === 'b64') return base64(where, value);
  if (enc) log.warn(`${where}: unknown encoding '${enc}', read as plain text as cloud-init does`);
  return Buffer.from(value, 'utf8');
}

/** Bytes as UTF-8 text, or an error naming the key (metadata and network config must be text). */
export function guestinfoText(where: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SourceError('VMware', `${where} is not UTF-8 text once decoded`);
  }
}
