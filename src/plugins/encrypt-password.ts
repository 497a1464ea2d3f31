// The admin password encrypted for the cloud as cloudbase-init does it: RSA PKCS#1 v1.5 with the instance's ssh-rsa
// key, base64.
import { constants, createPublicKey, publicEncrypt } from 'node:crypto';
import { PluginError } from './plugin';

/** Reads an OpenSSH 'ssh-rsa AAAA… comment' line into its exponent and modulus. */
function sshRsaKey(line: string): { e: Buffer; n: Buffer } {
  const [type, b64] = line.trim().split(/\s+/);
  if (type !== 'ssh-rsa' || !b64)
    throw new PluginError(
      'SetUserPasswordPlugin',
      `the first public key is ${type ?? 'empty'}, not ssh-rsa: the password can only be encrypted with an RSA key`,
    );
  const blob = Buffer.from(b64, 'base64');
  const parts: Buffer[] = [];
  for (let at = 0; at < blob.length && parts.length < 3; ) {
    if (at + 4 > blob.length) break;
    const len = blob.readUInt32BE(at);
    parts.push(blob.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  const [kind, exponent, modulus] = parts;
  if (parts.length !== 3 || kind?.toString() !== 'ssh-rsa' || !exponent || !modulus)
    throw new PluginError('SetUserPasswordPlugin', 'the ssh-rsa public key is malformed');
  const strip = (b: Buffer) => (b[0] === 0 ? b.subarray(1) : b);
  return { e: strip(exponent), n: strip(modulus) };
}

export function encryptPassword(sshPublicKey: string, password: string): string {
  const { e, n } = sshRsaKey(sshPublicKey);
  const key = createPublicKey({
    key: { kty: 'RSA', n: n.toString('base64url'), e: e.toString('base64url') },
    format: 'jwk',
  });
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(password, 'utf8')).toString('base64');
}
