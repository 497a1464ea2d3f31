// The two files ssh-keygen -N '' writes for a key: the private key as an unencrypted "openssh-key-v1" block,
// the public key as one "type base64 comment" line.
import { randomBytes } from 'node:crypto';
import type { OpenSshKey } from './openssh-key';
import { sshString, uint32 } from './ssh-wire';

/** The private key file: openssh-key-v1, cipher and KDF "none", base64 in 70-column lines. */
export function privateKeyFile(key: OpenSshKey, comment: string): string {
  // Two equal random check integers: OpenSSH compares them after decrypting (here, only after reading).
  const check = randomBytes(4);
  let section = Buffer.concat([check, check, sshString(key.sshName), key.privateFields, sshString(comment)]);
  const pad: number[] = [];
  for (let i = 1; (section.length + pad.length) % 8 !== 0; i++) pad.push(i);
  section = Buffer.concat([section, Buffer.from(pad)]);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0', 'latin1'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    uint32(1),
    sshString(key.publicBlob),
    sshString(section),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

/** The .pub line: "ssh-ed25519 AAAA… root@host". */
export function publicKeyLine(key: OpenSshKey, comment: string): string {
  return `${key.sshName} ${key.publicBlob.toString('base64')}${comment ? ` ${comment}` : ''}\n`;
}
