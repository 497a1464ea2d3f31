// `devel fs-cat` writes a file's exact bytes when standard output is not a terminal, and keeps binary off a terminal.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeIso9660 } from '../../src/devices/iso9660-writer';
import { main } from '../../src/main';
import { tempDir } from '../helpers/temp';

const BINARY = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0a, 0xc3, 0x28, 0x1b, 0x5b, 0x32, 0x4a]);
const BOM_TEXT = Buffer.from('\ufeff#cloud-config\nhostname: kiln\n', 'utf8');

async function fsCat(argv: string[], terminal: boolean) {
  let text = '';
  let err = '';
  const chunks: Buffer[] = [];
  const code = await main({
    argv: ['devel', 'fs-cat', ...argv],
    argv0: 'kiln',
    env: {},
    io: {
      out: (s) => void (text += s),
      err: (s) => void (err += s),
      outBytes: (b) => void chunks.push(Buffer.from(b)),
      outIsTerminal: () => terminal,
    },
  });
  return { code, text, bytes: Buffer.concat(chunks), err };
}

function image(dir: string): string {
  const iso = join(dir, 'seed.iso');
  writeFileSync(
    iso,
    writeIso9660(
      [
        { path: 'blob.bin', data: BINARY },
        { path: 'user-data', data: BOM_TEXT },
      ],
      { label: 'cidata' },
    ),
  );
  return iso;
}

test('fs-cat to a pipe or file: the exact bytes of a binary file and of a text file with a BOM', async (t) => {
  const iso = image(tempDir(t));
  const bin = await fsCat([iso, 'blob.bin'], false);
  assert.equal(bin.code, 0, bin.err);
  assert.deepEqual(bin.bytes, BINARY);
  assert.equal(bin.text, '');
  const txt = await fsCat([iso, 'user-data'], false);
  assert.equal(txt.code, 0, txt.err);
  assert.deepEqual(txt.bytes, BOM_TEXT);
});

test('fs-cat to a terminal: text is printed, binary is refused with what to do instead', async (t) => {
  const iso = image(tempDir(t));
  const bin = await fsCat([iso, 'blob.bin'], true);
  assert.equal(bin.code, 1);
  assert.equal(bin.bytes.length + bin.text.length, 0, 'nothing reaches the terminal');
  assert.match(
    bin.err,
    /'blob\.bin' is binary \(not UTF-8 text\) and standard output is a terminal; pipe it .*\| sha256sum\) or save it with -o FILE/,
  );
  assert.doesNotMatch(bin.err, /\n {4}at /, 'no stack trace');
  const txt = await fsCat([iso, 'user-data'], true);
  assert.equal(txt.code, 0, txt.err);
  assert.equal(txt.text, BOM_TEXT.toString('utf8'));
});

test('fs-cat -o FILE saves the bytes whatever standard output is', async (t) => {
  const dir = tempDir(t);
  const iso = image(dir);
  for (const terminal of [true, false]) {
    const out = join(dir, `blob-${terminal}.bin`);
    const r = await fsCat(['-o', out, iso, 'blob.bin'], terminal);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(readFileSync(out), BINARY);
    assert.equal(r.bytes.length + r.text.length, 0);
  }
});

test('fs-cat -o FILE under --dry-run names the file it would write and writes nothing', async (t) => {
  const dir = tempDir(t);
  const iso = image(dir);
  const out = join(dir, 'never.bin');
  const r = await fsCat(['--dry-run', '-o', out, iso, 'blob.bin'], false);
  assert.equal(r.code, 0, r.err);
  assert.equal(existsSync(out), false);
  assert.match(
    r.text,
    new RegExp(`would write ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(${BINARY.length} bytes\\)`),
  );
});

test('fs-ls and fs-cat agree on exit codes: 1 for what the image does not hold or an image that is not there, 2 for bad usage', async (t) => {
  const iso = image(tempDir(t));
  const run = async (argv: string[]) => {
    let err = '';
    const code = await main({
      argv,
      argv0: 'kiln',
      env: {},
      io: { out: () => undefined, err: (s) => void (err += s) },
    });
    return { code, err };
  };
  assert.equal((await run(['devel', 'fs-cat', iso, 'nope'])).code, 1);
  const noFolder = await run(['devel', 'fs-ls', iso, '/nope']);
  assert.equal(noFolder.code, 1);
  assert.match(noFolder.err, /'\/nope' is not a folder in the image/);
  assert.equal((await run(['devel', 'fs-ls', '/nonexistent/kiln.iso'])).code, 1);
  assert.equal((await run(['devel', 'fs-cat', '/nonexistent/kiln.iso', 'x'])).code, 1);
  assert.equal((await run(['devel', 'fs-ls'])).code, 2);
  assert.equal((await run(['devel', 'fs-cat', iso])).code, 2);
});
