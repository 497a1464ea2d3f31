// SOCKADDR_IN / SOCKADDR_IN6 bytes to and from address text, for the IP Helper bindings.
import { PlatformError } from '../../../util/errors';

const AF_INET = 2;
const AF_INET6 = 23;

/** The 4 or 16 address bytes of ADDRESS. */
export function addressBytes(address: string, family: 'ipv4' | 'ipv6'): Uint8Array {
  if (family === 'ipv4') {
    const parts = address.split('.').map(Number);
    if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
      throw new PlatformError(`'${address}' is not an IPv4 address`);
    return Uint8Array.from(parts);
  }
  const pieces = (address.split('%')[0] ?? '').split('::');
  if (pieces.length > 2) throw new PlatformError(`'${address}' is not an IPv6 address`);
  const [head = '', tail] = pieces;
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const missing = 8 - left.length - right.length;
  if ((tail === undefined && missing !== 0) || missing < 0)
    throw new PlatformError(`'${address}' is not an IPv6 address`);
  const all = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right];
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    const v = Number.parseInt(g, 16);
    if (!/^[0-9a-f]{1,4}$/i.test(g)) throw new PlatformError(`'${address}' is not an IPv6 address`);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  });
  return out;
}

/** Reads a SOCKADDR (the family decides the layout); undefined for other families. */
export function sockaddrText(sa: Uint8Array): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const b = Buffer.from(sa.buffer, sa.byteOffset, sa.length);
  const family = b.readUInt16LE(0);
  if (family === AF_INET) return { address: [...b.subarray(4, 8)].join('.'), family: 'ipv4' };
  if (family === AF_INET6) {
    const groups: string[] = [];
    for (let i = 0; i < 8; i++) groups.push(b.readUInt16BE(8 + i * 2).toString(16));
    // Compress the longest run of zero groups, as RFC 5952 writes addresses.
    let best = -1;
    let bestLen = 0;
    for (let i = 0; i < 8; ) {
      if (groups[i] !== '0') {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === '0') j++;
      if (j - i > bestLen && j - i > 1) {
        best = i;
        bestLen = j - i;
      }
      i = j;
    }
    const text =
      best < 0 ? groups.join(':') : `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
    return { address: text, family: 'ipv6' };
  }
  return undefined;
}
