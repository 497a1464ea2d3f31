// OpenSSH's "drunken bishop" randomart and the text ssh-keygen prints when it makes a key.

const WIDTH = 17;
const HEIGHT = 9;
const SYMBOLS = ' .o+=*BOX@%&#/^SE';

function borderLine(label: string): string {
  const left = Math.floor((WIDTH - label.length) / 2);
  return `+${'-'.repeat(left)}${label}${'-'.repeat(Math.max(0, WIDTH - left - label.length))}+`;
}

/**
 * The picture ssh-keygen draws for a digest: a bishop starts in the middle and takes four diagonal steps per
 * byte (two bits each, lowest first: bit 0 right/left, bit 1 down/up), staying inside the 17×9 field; each
 * visit darkens a square; S marks the start, E the end.
 */
export function randomart(digest: Uint8Array, title: string, hashName = 'SHA256'): string {
  const last = SYMBOLS.length - 1;
  const field: number[][] = Array.from({ length: WIDTH }, () => new Array<number>(HEIGHT).fill(0));
  let x = Math.floor(WIDTH / 2);
  let y = Math.floor(HEIGHT / 2);
  for (const byte of digest) {
    let input = byte;
    for (let step = 0; step < 4; step++) {
      x = Math.min(Math.max(x + (input & 1 ? 1 : -1), 0), WIDTH - 1);
      y = Math.min(Math.max(y + (input & 2 ? 1 : -1), 0), HEIGHT - 1);
      const column = field[x] as number[];
      if ((column[y] as number) < last - 2) column[y] = (column[y] as number) + 1;
      input >>= 2;
    }
  }
  (field[Math.floor(WIDTH / 2)] as number[])[Math.floor(HEIGHT / 2)] = last - 1;
  (field[x] as number[])[y] = last;
  const rows: string[] = [borderLine(`[${title}]`)];
  for (let row = 0; row < HEIGHT; row++) {
    let line = '|';
    for (let col = 0; col < WIDTH; col++) line += SYMBOLS[Math.min((field[col] as number[])[row] as number, last)];
    rows.push(`${line}|`);
  }
  rows.push(borderLine(`[${hashName}]`));
  return rows.join('\n');
}

/** What `ssh-keygen -t TYPE -N '' -f FILE` prints on stdout (LANG=C). */
export function keygenReport(type: string, file: string, fingerprint: string, comment: string, art: string): string {
  return [
    `Generating public/private ${type} key pair.`,
    `Your identification has been saved in ${file}`,
    `Your public key has been saved in ${file}.pub`,
    'The key fingerprint is:',
    `${fingerprint} ${comment}`,
    "The key's randomart image is:",
    art,
    '',
  ].join('\n');
}
