// ASCII-armored OpenPGP keys to binary (what `gpg --dearmor` does for one armored block), so apt keyrings need no gpg.
import { SubjectError } from '../util/errors';

/**
 * The binary packets inside the first `-----BEGIN PGP PUBLIC KEY BLOCK-----` armor of TEXT; errors name SUBJECT (the
 * module) and WHERE.
 */
export function dearmorKey(text: string, subject: string, where: string): Uint8Array {
  const m =
    /-----BEGIN PGP (?:PUBLIC|PRIVATE) KEY BLOCK-----\r?\n([\s\S]*?)-----END PGP (?:PUBLIC|PRIVATE) KEY BLOCK-----/.exec(
      text,
    );
  if (!m)
    throw new SubjectError(
      subject,
      `${where}: the key is not an ASCII-armored OpenPGP key block (expected '-----BEGIN PGP PUBLIC KEY BLOCK-----')`,
    );
  const lines = (m[1] as string).split(/\r?\n/);
  // Armor headers (Version:, Comment:) end at the first empty line, when present.
  const blank = lines.findIndex((l) => l.trim() === '');
  const hasHeaders = blank >= 0 && lines.slice(0, blank).every((l) => /^[A-Za-z-]+:\s/.test(l));
  const body = (hasHeaders ? lines.slice(blank + 1) : lines)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('='));
  const b64 = body.join('');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length === 0)
    throw new SubjectError(subject, `${where}: the armored key holds invalid base64`);
  return Buffer.from(b64, 'base64');
}
