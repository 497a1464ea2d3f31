// SSH host keys made in-process (node:crypto) and written in OpenSSH's own formats, the way ssh-keygen writes them:
// the private key as an unencrypted "openssh-key-v1" block, the public key as one "type base64 comment" line.
import { createHash, generateKeyPair, type JsonWebKey, type KeyObject, randomBytes } from 'node:crypto';
import { derIntegers } from '../util/der-integers';
import { generateDsaDer } from './dsa-key';
import { generateRsaJwk } from './rsa-from-primes';

/** The host key types kiln generates itself; others (the -sk types, whatever comes next) are left to ssh-keygen. */
export type InProcessKeyType = 'rsa' | 'dsa' | 'ecdsa' | 'ed25519';
const IN_PROCESS_KEY_TYPES: readonly string[] = ['rsa', 'dsa', 'ecdsa', 'ed25519'];

export function isInProcessKeyType(type: string): type is InProcessKeyType {
  return IN_PROCESS_KEY_TYPES.includes(type);
}

/** ssh-keygen's defaults: RSA 3072 bits, DSA 1024 bits (160-bit q), ECDSA on nistp256. */
const RSA_BITS = 3072;
const DSA_BITS = 1024;

export interface OpenSshKey {
  type: InProcessKeyType;
  /** The wire name: ssh-rsa, ecdsa-sha2-nistp256, ssh-ed25519. */
  sshName: string;
  /** ssh-keygen's display name and size, used in the randomart title: RSA 3072, DSA 1024, ECDSA 256, ED25519 256. */
  displayName: string;
  bits: number;
  /** The public key blob (what authorized_keys and fingerprints are made of). */
  publicBlob: Buffer;
  /** The type-specific private fields that follow the key type in the private section. */
  privateFields: Buffer;
}

function sshString(data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const len = Buffer.alloc(4);
  len.writeUInt32BE(body.length);
  return Buffer.concat([len, body]);
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** An unsigned big-endian integer as an SSH mpint: no leading zeros, one 0x00 when the top bit is set. */
export function sshMpint(unsigned: Buffer): Buffer {
  let start = 0;
  while (start < unsigned.length && unsigned[start] === 0) start++;
  const digits = unsigned.subarray(start);
  const body = digits.length > 0 && ((digits[0] as number) & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), digits]) : digits;
  return sshString(body);
}

function jwkPart(jwk: JsonWebKey, name: keyof JsonWebKey): Buffer {
  const value = jwk[name];
  if (typeof value !== 'string') throw new Error(`the generated key has no '${String(name)}' component`);
  return Buffer.from(value, 'base64url');
}

function generateJwk(type: 'ecdsa' | 'ed25519'): Promise<JsonWebKey> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, _pub: KeyObject, priv: KeyObject): void => {
      if (err) reject(err);
      else resolve(priv.export({ format: 'jwk' }));
    };
    if (type === 'ecdsa') generateKeyPair('ec', { namedCurve: 'P-256' }, done);
    else generateKeyPair('ed25519', undefined, done);
  });
}

/** The key material of a JWK private key as OpenSSH lays it out. */
export function openSshKeyFromJwk(type: Exclude<InProcessKeyType, 'dsa'>, jwk: JsonWebKey): OpenSshKey {
  if (type === 'rsa') {
    const n = jwkPart(jwk, 'n');
    const e = jwkPart(jwk, 'e');
    return {
      type,
      sshName: 'ssh-rsa',
      displayName: 'RSA',
      bits: RSA_BITS,
      publicBlob: Buffer.concat([sshString('ssh-rsa'), sshMpint(e), sshMpint(n)]),
      // n, e, d, iqmp (q⁻¹ mod p, JWK's qi), p, q.
      privateFields: Buffer.concat([sshMpint(n), sshMpint(e), sshMpint(jwkPart(jwk, 'd')), sshMpint(jwkPart(jwk, 'qi')), sshMpint(jwkPart(jwk, 'p')), sshMpint(jwkPart(jwk, 'q'))]),
    };
  }
  if (type === 'ecdsa') {
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

/** DSA has no JWK form: its p, q, g, y come from the SPKI DER and x from the PKCS#8 DER. */
export function openSshDsaKeyFromDer(spki: Uint8Array, pkcs8: Uint8Array): OpenSshKey {
  const [p, q, g, y] = derIntegers(spki);
  // PKCS#8 starts with its version INTEGER (0), then the same p, q, g, then x.
  const x = derIntegers(pkcs8)[4];
  if (!p || !q || !g || !y || !x) throw new Error('the generated DSA key lacks one of p, q, g, y, x');
  const publicFields = Buffer.concat([sshMpint(p), sshMpint(q), sshMpint(g), sshMpint(y)]);
  return {
    type: 'dsa',
    sshName: 'ssh-dss',
    displayName: 'DSA',
    bits: DSA_BITS,
    publicBlob: Buffer.concat([sshString('ssh-dss'), publicFields]),
    privateFields: Buffer.concat([publicFields, sshMpint(x)]),
  };
}

async function generateDsa(signal: AbortSignal | undefined): Promise<OpenSshKey> {
  const { spki, pkcs8 } = await generateDsaDer(signal);
  return openSshDsaKeyFromDer(spki, pkcs8);
}

/**
 * Generates a key on libuv's thread pool, so several types (and the rest of the stage) proceed at once. SIGNAL
 * abandons the prime searches of RSA and DSA (the other types take well under a millisecond).
 */
export async function generateOpenSshKey(type: InProcessKeyType, signal?: AbortSignal): Promise<OpenSshKey> {
  if (type === 'dsa') return generateDsa(signal);
  if (type === 'rsa') return openSshKeyFromJwk(type, await generateRsaJwk(RSA_BITS, signal));
  return openSshKeyFromJwk(type, await generateJwk(type));
}

/** The private key file ssh-keygen -N '' writes: openssh-key-v1, cipher and KDF "none", base64 in 70-column lines. */
export function privateKeyFile(key: OpenSshKey, comment: string): string {
  const check = randomBytes(4);
  let section = Buffer.concat([check, check, sshString(key.sshName), key.privateFields, sshString(comment)]);
  const pad: number[] = [];
  for (let i = 1; (section.length + pad.length) % 8 !== 0; i++) pad.push(i);
  section = Buffer.concat([section, Buffer.from(pad)]);
  const body = Buffer.concat([Buffer.from('openssh-key-v1\0', 'latin1'), sshString('none'), sshString('none'), sshString(''), uint32(1), sshString(key.publicBlob), sshString(section)]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

/** The .pub line: "ssh-ed25519 AAAA… root@host". */
export function publicKeyLine(key: OpenSshKey, comment: string): string {
  return `${key.sshName} ${key.publicBlob.toString('base64')}${comment ? ` ${comment}` : ''}\n`;
}

/** The SHA256 digest of a public blob, as fingerprints and randomart use it. */
export function sha256Digest(publicBlob: Buffer): Buffer {
  return createHash('sha256').update(publicBlob).digest();
}

/** "SHA256:<unpadded base64>", as ssh-keygen -l prints it. */
export function sha256Fingerprint(publicBlob: Buffer): string {
  return `SHA256:${sha256Digest(publicBlob).toString('base64').replace(/=+$/, '')}`;
}
