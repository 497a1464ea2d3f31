// A private key laid out as OpenSSH keeps it: the public key blob (what authorized_keys lines and fingerprints
// are made of) and the type-specific private fields of the openssh-key-v1 format, taken from OpenSSL's key.
import type { JsonWebKey, KeyObject } from 'node:crypto';
import { sshMpint, sshString } from './ssh-wire';

/** The host key types kiln makes itself; others (dsa, the -sk types, whatever comes next) are left to ssh-keygen. */
export type HostKeyType = 'rsa' | 'ecdsa' | 'ed25519';
const HOST_KEY_TYPES: readonly string[] = ['rsa', 'ecdsa', 'ed25519'];

export function isHostKeyType(type: string): type is HostKeyType {
  return HOST_KEY_TYPES.includes(type);
}

export interface OpenSshKey {
  type: HostKeyType;
  /** The wire name: ssh-rsa, ecdsa-sha2-nistp256, ssh-ed25519. */
  sshName: string;
  /** ssh-keygen's display name, used with the size in the randomart title: RSA 3072, ECDSA 256, ED25519 256. */
  displayName: string;
  bits: number;
  /** The public key blob. */
  publicBlob: Buffer;
  /** The type-specific private fields that follow the key type in the private section. */
  privateFields: Buffer;
}

function jwkPart(jwk: JsonWebKey, name: keyof JsonWebKey): Buffer {
  const value = jwk[name];
  if (typeof value !== 'string') throw new Error(`the generated key has no '${String(name)}' component`);
  return Buffer.from(value, 'base64url');
}

/** The key material of PRIVATE_KEY (an RSA, P-256 or Ed25519 private key) as OpenSSH lays it out for TYPE. */
export function openSshKeyFromPrivateKey(type: HostKeyType, privateKey: KeyObject): OpenSshKey {
  const jwk = privateKey.export({ format: 'jwk' });
  if (type === 'rsa') {
    if (jwk.kty !== 'RSA') throw new Error(`an RSA host key was expected, not ${String(jwk.kty)}`);
    const n = jwkPart(jwk, 'n');
    const e = jwkPart(jwk, 'e');
    return {
      type,
      sshName: 'ssh-rsa',
      displayName: 'RSA',
      bits: privateKey.asymmetricKeyDetails?.modulusLength ?? n.length * 8,
      publicBlob: Buffer.concat([sshString('ssh-rsa'), sshMpint(e), sshMpint(n)]),
      // n, e, d, iqmp (q⁻¹ mod p, JWK's qi), p, q.
      privateFields: Buffer.concat([
        sshMpint(n),
        sshMpint(e),
        sshMpint(jwkPart(jwk, 'd')),
        sshMpint(jwkPart(jwk, 'qi')),
        sshMpint(jwkPart(jwk, 'p')),
        sshMpint(jwkPart(jwk, 'q')),
      ]),
    };
  }
  if (type === 'ecdsa') {
    if (jwk.crv !== 'P-256') throw new Error(`an ECDSA host key on P-256 was expected, not ${String(jwk.crv)}`);
    const point = Buffer.concat([Buffer.from([4]), jwkPart(jwk, 'x'), jwkPart(jwk, 'y')]);
    const head = Buffer.concat([sshString('ecdsa-sha2-nistp256'), sshString('nistp256'), sshString(point)]);
    return {
      type,
      sshName: 'ecdsa-sha2-nistp256',
      displayName: 'ECDSA',
      bits: 256,
      publicBlob: head,
      privateFields: Buffer.concat([sshString('nistp256'), sshString(point), sshMpint(jwkPart(jwk, 'd'))]),
    };
  }
  if (jwk.crv !== 'Ed25519') throw new Error(`an Ed25519 host key was expected, not ${String(jwk.crv)}`);
  const pub = jwkPart(jwk, 'x');
  return {
    type,
    sshName: 'ssh-ed25519',
    displayName: 'ED25519',
    bits: 256,
    publicBlob: Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]),
    // OpenSSH keeps the 32-byte seed followed by the public key.
    privateFields: Buffer.concat([sshString(pub), sshString(Buffer.concat([jwkPart(jwk, 'd'), pub]))]),
  };
}
