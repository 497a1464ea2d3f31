// SHA256 key fingerprints as OpenSSH computes them: the digest of the public key blob.
import { createHash } from 'node:crypto';

/** The SHA256 digest of a public blob, as fingerprints and randomart use it. */
export function sha256Digest(publicBlob: Buffer): Buffer {
  return createHash('sha256').update(publicBlob).digest();
}

/** "SHA256:<unpadded base64>", as ssh-keygen -l prints it. */
export function sha256Fingerprint(publicBlob: Buffer): string {
  return `SHA256:${sha256Digest(publicBlob).toString('base64').replace(/=+$/, '')}`;
}
