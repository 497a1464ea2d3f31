// Every command README's command table shows works under the `kiln` name too: its --help parses, and --all-stages runs.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/main';
import { REPO } from '../helpers/repo';
import { tempDir } from '../helpers/temp';

async function kiln(args: string[]) {
  let out = '';
  let err = '';
  const code = await main({
    argv: args,
    argv0: '/usr/bin/kiln',
    env: {},
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
  });
  return { code, out, err };
}

/**
 * The commands in README's table under "One binary, three faces": each backticked span of the first column,
 * its leading words (up to the first flag or placeholder), `a\|b` in the last word expanded to each choice.
 * A span that starts with a flag (`--all-stages`) is that flag.
 */
export function readmeCommands(readme: string): string[][] {
  const table = readme.slice(readme.indexOf('| command | what it does |'));
  const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
  const out: string[][] = [];
  for (const row of rows) {
    const first = row.slice(2, row.indexOf(' | '));
    for (const span of first.match(/`[^`]+`/g) ?? []) {
      const tokens = span.slice(1, -1).split(' ');
      if (tokens[0]?.startsWith('--')) {
        out.push([tokens[0]]);
        continue;
      }
      const words: string[] = [];
      for (const tok of tokens) {
        if (tok.startsWith('-') || tok.startsWith('[') || /^[A-Z]/.test(tok)) break;
        words.push(tok);
      }
      const last = words.pop() as string;
      for (const choice of last.split('\\|')) out.push([...words, choice]);
    }
  }
  return out;
}

test("README's command table, walked under the kiln name: every command's --help parses", async () => {
  const commands = readmeCommands(readFileSync(join(REPO, 'README.md'), 'utf8'));
  assert.ok(
    commands.every((c) => c.length > 0 && !c.some((w) => w.includes('/'))),
    JSON.stringify(commands),
  );
  // The table is read, not guessed at: a change to README's layout must not make this test walk nothing.
  for (const expected of [
    ['init'],
    ['modules'],
    ['--all-stages'],
    ['status'],
    ['analyze', 'blame'],
    ['devel', 'net-convert'],
    ['make-seed'],
    ['service', 'uninstall'],
  ]) {
    assert.ok(
      commands.some((c) => c.join(' ') === expected.join(' ')),
      `README's table lists ${expected.join(' ')}`,
    );
  }
  assert.ok(commands.length >= 25, `${commands.length} commands read from README`);
  for (const words of commands) {
    const r = await kiln([...words, '--help']);
    assert.equal(r.code, 0, `kiln ${words.join(' ')} --help: ${r.err}`);
    const usage = words[0] === '--all-stages' ? 'usage: kiln --all-stages' : `usage: kiln ${words.join(' ')}`;
    assert.ok(
      r.out.startsWith(usage),
      `kiln ${words.join(' ')} --help prints its own usage, not: ${r.out.split('\n')[0]}`,
    );
  }
});

test('kiln --all-stages boots a sandbox root under --dry-run; kiln alone or with an unknown word is still a usage error', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/cloud/seed/nocloud'), { recursive: true });
  writeFileSync(join(root, 'var/lib/cloud/seed/nocloud/meta-data'), 'instance-id: i-readme\n');
  writeFileSync(
    join(root, 'var/lib/cloud/seed/nocloud/user-data'),
    '#cloud-config\npreserve_hostname: true\nusers: []\nruncmd: [echo hello]\n',
  );
  const r = await kiln(['--root', root, '--dry-run', '--all-stages']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /running 'modules:final'/);
  assert.match(r.out, /dry run: \d+ effects? not applied/);
  const help = await kiln(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /^usage: kiln /);
  assert.match(help.out, /\n {2}--all-stages +run every boot stage in one process\n/);
  const none = await kiln([]);
  assert.equal(none.code, 2);
  assert.match(none.err, /no command given/);
  const unknown = await kiln(['frobnicate']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown command 'frobnicate'/);
  const flag = await kiln(['--file', 'x.cfg']);
  assert.equal(flag.code, 2, 'a flag of --all-stages without it names no command');
});
