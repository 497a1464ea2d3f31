// Text that must be UTF-8 (cloud-config, system config): decoded strictly, so that a stray byte is an error
// naming the file, line and column (as PyYAML's reader refuses it for cloud-init) rather than a U+FFFD that
// ends up in /etc/hostname.
import { ConfigError } from './errors';

/** BYTES as UTF-8 text; throws a ConfigError naming SOURCE, the line, column and byte at the first invalid sequence. */
export function decodeUtf8Strict(bytes: Uint8Array, source: string): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (!text.includes('\uFFFD')) return text;
  // Everything before the first replacement that stands for bad bytes decoded as given, so offsets add up
  // exactly until there; a U+FFFD the input really holds (EF BF BD) is text like any other.
  let offset = 0;
  let line = 1;
  let column = 1;
  for (const ch of text) {
    if (ch === '\uFFFD' && !(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) {
      const byte = (bytes[offset] ?? 0).toString(16).padStart(2, '0');
      throw new ConfigError(
        `${source}:${line}:${column}: invalid UTF-8 (byte 0x${byte} at offset ${offset}); it must be UTF-8 text`,
      );
    }
    offset += Buffer.byteLength(ch);
    if (ch === '\n') {
      line++;
      column = 1;
    } else column++;
  }
  return text;
}
