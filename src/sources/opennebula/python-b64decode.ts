// Python's base64.b64decode as cloud-init's util.b64d calls it (not validating): stray characters skipped, padding
// checked.

const ALPHABET = /[A-Za-z0-9+/]/;

/**
 * The bytes Python's b64decode(TEXT) gives, or the message of the binascii.Error it raises (a string).
 * As binascii.a2b_base64 in its lenient mode: characters outside the alphabet are skipped, '=' ends the data once it
 * completes a group of four, and a last group that is short of its padding is an error.
 */
export function pythonB64decode(text: string): Uint8Array | string {
  let data = '';
  let quad = 0;
  let pads = 0;
  for (const ch of text) {
    if (ch === '=') {
      pads++;
      if (quad >= 2 && quad + pads >= 4) return Buffer.from(data, 'base64');
      continue;
    }
    if (!ALPHABET.test(ch)) continue;
    data += ch;
    quad = (quad + 1) % 4;
    pads = 0;
  }
  if (quad === 1)
    return `Invalid base64-encoded string: number of data characters (${data.length}) cannot be 1 more than a multiple of 4`;
  if (quad !== 0) return 'Incorrect padding';
  return Buffer.from(data, 'base64');
}
