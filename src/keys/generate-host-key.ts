// New host keys from OpenSSL (crypto.generateKeyPair, which runs on libuv's thread pool), with ssh-keygen's
// default sizes: RSA 3072 bits (e = 65537), ECDSA on nistp256, Ed25519.
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { type HostKeyType, openSshKeyFromPrivateKey, type OpenSshKey } from './openssh-key';

/** ssh-keygen's default RSA size. */
export const RSA_BITS = 3072;

/** A new private key of TYPE, made by OpenSSL on the thread pool. */
export function generateHostPrivateKey(type: HostKeyType): Promise<KeyObject> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, _publicKey: KeyObject, privateKey: KeyObject): void =>
      err ? reject(err) : resolve(privateKey);
    if (type === 'rsa') generateKeyPair('rsa', { modulusLength: RSA_BITS, publicExponent: 0x10001 }, done);
    else if (type === 'ecdsa') generateKeyPair('ec', { namedCurve: 'P-256' }, done);
    else generateKeyPair('ed25519', undefined, done);
  });
}

/** A new host key of TYPE, laid out as OpenSSH keeps it. */
export async function generateHostKey(type: HostKeyType): Promise<OpenSshKey> {
  return openSshKeyFromPrivateKey(type, await generateHostPrivateKey(type));
}
