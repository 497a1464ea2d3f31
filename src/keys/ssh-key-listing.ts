// The line `ssh-keygen -l -f KEY.pub` prints for a public key ("256 SHA256:... root@host (ED25519)"), made
// from the key's own blob: its size in bits, its SHA256 fingerprint, its comment and its type's label.
import { sha256Fingerprint } from './fingerprint';

/** ssh-keygen's label and the size in bits of each key type whose size is fixed. */
const FIXED: Record<string, { label: string; bits: number }> = {
  'ssh-ed25519': { label: 'ED25519', bits: 256 },
  'sk-ssh-ed25519@openssh.com': { label: 'ED25519-SK', bits: 256 },
  'ecdsa-sha2-nistp256': { label: 'ECDSA', bits: 256 },
  'ecdsa-sha2-nistp384': { label: 'ECDSA', bits: 384 },
  'ecdsa-sha2-nistp521': { label: 'ECDSA', bits: 521 },
  'sk-ecdsa-sha2-nistp256@openssh.com': { label: 'ECDSA-SK', bits: 256 },
};

/** Reads the SSH wire format's length-prefixed strings from a public blob. */
function wireStrings(blob: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at + 4 <= blob.length) {
    const len = blob.readUInt32BE(at);
    if (at + 4 + len > blob.length) throw new Error('truncated key blob');
    out.push(blob.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  if (at !== blob.length) throw new Error('trailing bytes in key blob');
  return out;
}

/** The bit length of an SSH mpint (big-endian, a leading zero byte when the top bit is set). */
function mpintBits(mpint: Buffer): number {
  let i = 0;
  while (i < mpint.length && mpint[i] === 0) i++;
  if (i === mpint.length) return 0;
  return (mpint.length - i - 1) * 8 + (32 - Math.clz32(mpint[i] as number));
}

/**
 * Type label and size of a blob whose type is TYPE, undefined for a type kiln does not know (certificates
 * among them) or a blob of another type.
 */
function describeBlob(blob: Buffer, type: string): { label: string; bits: number } | undefined {
  const parts = wireStrings(blob);
  if (parts[0]?.toString('latin1') !== type) return undefined;
  if (FIXED[type]) return FIXED[type];
  // ssh-rsa: e, n; ssh-dss: p, q, g, y. The size is that of n and p.
  if (type === 'ssh-rsa' && parts.length === 3) return { label: 'RSA', bits: mpintBits(parts[2] as Buffer) };
  if (type === 'ssh-dss' && parts.length === 5) return { label: 'DSA', bits: mpintBits(parts[1] as Buffer) };
  return undefined;
}

/**
 * ssh-keygen -l's line for the first line of a .pub file, undefined when the key's type is one kiln does not
 * describe or the line is not a key (the caller then asks ssh-keygen).
 */
export function sshKeygenListLine(pubLine: string): string | undefined {
  const m = /^\s*(\S+)\s+([A-Za-z0-9+/]+={0,2})(?:\s+(.*?))?\s*$/.exec(pubLine);
  if (!m) return undefined;
  const blob = Buffer.from(m[2] as string, 'base64');
  let described: { label: string; bits: number } | undefined;
  try {
    described = describeBlob(blob, m[1] as string);
  } catch {
    return undefined; // a key blob that does not parse is listed without a description
  }
  if (!described) return undefined;
  return `${described.bits} ${sha256Fingerprint(blob)} ${m[3] || 'no comment'} (${described.label})`;
}
