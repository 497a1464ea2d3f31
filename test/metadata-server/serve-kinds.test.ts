// The kinds `devel serve-metadata` serves come from one list (src/metadata-server/serve-kinds.ts): the command writes
// none by hand.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/main';
import { describedKinds, SERVE_KINDS, wordList } from '../../src/metadata-server/serve-kinds';
import { REPO } from '../helpers/repo';
import { tempDir } from '../helpers/temp';

const KINDS: string[] = SERVE_KINDS.map((k) => k.kind);

async function kiln(argv: string[]) {
  let out = '';
  let err = '';
  const code = await main({
    argv,
    argv0: '/usr/bin/kiln',
    env: {},
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
  });
  return { code, out, err };
}

test('src/cli/devel-serve-metadata.ts names no kind: no quoted kind, no list of kinds written out', () => {
  const text = readFileSync(join(REPO, 'src', 'cli', 'devel-serve-metadata.ts'), 'utf8');
  const quoted = [...text.matchAll(/'([a-z0-9]+)'/g)].map((m) => m[1] as string).filter((w) => KINDS.includes(w));
  assert.deepEqual(quoted, [], 'kinds quoted in the command');
  const alternatives = KINDS.join('|');
  const lists =
    text.match(new RegExp(`\\b(${alternatives})(, |\\||\\s+or\\s+|\\s+and\\s+)(${alternatives})\\b`, 'g')) ?? [];
  assert.deepEqual(lists, [], 'kinds listed in the command');
});

test('every kind of the list is offered by --help, named in the summary and accepted by --kind', async (t) => {
  const help = await kiln(['devel', 'serve-metadata', '--help']);
  assert.equal(help.code, 0, help.err);
  assert.ok(help.out.includes(`--kind ${KINDS.join('|')} --dir DIR`), help.out);
  assert.ok(help.out.replace(/\n\s+/g, ' ').includes(`${wordList(KINDS)} (the folder layouts`), help.out);
  for (const kind of KINDS)
    assert.ok(describedKinds().split(/,? /).includes(kind), `${kind} in the summary '${describedKinds()}'`);
  const dir = tempDir(t, 'serve-kinds-');
  for (const kind of KINDS) {
    // No --socket: HTTP kinds go on to the listen address (refused here on purpose), socket kinds ask for one.
    const r = await kiln(['devel', 'serve-metadata', '--kind', kind, '--dir', dir, '--listen', 'nowhere']);
    assert.equal(r.code, 2, `${kind}: ${r.err}`);
    assert.doesNotMatch(r.err, /--kind must be one of/, kind);
    assert.match(
      r.err,
      new RegExp(
        SERVE_KINDS.find((k) => k.kind === kind)?.transport === 'http'
          ? '--listen must be HOST:PORT'
          : `--kind ${kind} needs --socket PATH`,
      ),
      kind,
    );
  }
  const unknown = await kiln(['devel', 'serve-metadata', '--kind', 'nosuchcloud', '--dir', dir]);
  assert.equal(unknown.code, 2);
  assert.ok(unknown.err.includes(`--kind must be one of ${KINDS.join(', ')}, not 'nosuchcloud'`), unknown.err);
});
