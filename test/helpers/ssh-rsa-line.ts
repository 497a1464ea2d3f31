// An OpenSSH 'ssh-rsa' public key line for a Node RSA key, and the PKCS#1 v1.5 decryption the password tests check
// posts with.
import assert from 'node:assert/strict';
import { constants, privateDecrypt, type KeyObject } from 'node:crypto';

/** The 'ssh-rsa AAAA… COMMENT' line of KEY, built from its JWK modulus and exponent. */
export function sshRsaLine(key: KeyObject, comment = 'kiln@test'): string {
  const jwk = key.export({ format: 'jwk' });
  const mpint = (b64url: string) => {
    const b = Buffer.from(b64url, 'base64url');
    return (b[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b;
  };
  const field = (b: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(b.length, 0);
    return Buffer.concat([len, b]);
  };
  return `ssh-rsa ${Buffer.concat([field(Buffer.from('ssh-rsa')), field(mpint(jwk.e ?? '')), field(mpint(jwk.n ?? ''))]).toString('base64')} ${comment}`;
}

/**
 * Raw RSA, then the PKCS#1 v1.5 type 2 padding (00 02 nonzero… 00 message) checked and removed by hand (Node refuses
 * PKCS#1 decryption).
 */
export function decryptPkcs1(privateKey: KeyObject, b64: string): string {
  const block = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, Buffer.from(b64, 'base64'));
  assert.equal(block[0], 0);
  assert.equal(block[1], 2, 'PKCS#1 v1.5 encryption padding');
  const sep = block.indexOf(0, 2);
  assert.ok(sep >= 10, 'at least 8 padding bytes');
  return block.subarray(sep + 1).toString('utf8');
}
