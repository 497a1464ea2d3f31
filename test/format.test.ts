// The tree is as Biome's formatter writes it (biome.jsonc: width 120, single quotes, trailing commas), and no
// comment is wider than that width: the formatter lays out the code but leaves comments alone. A code line is
// wider only where it holds a string, template or regex literal, which no formatter breaks (issue 32, item 9).
// `npm run format` rewrites the tree; wrap a long comment by hand.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from './helpers/repo';
import { tempDir } from './helpers/temp';

const BIOME = join(REPO, 'node_modules/@biomejs/biome/bin/biome');
const WIDTH = 120;

/** What `biome format` (without --write) says of the tree at ROOT: its exit code and its report. */
function formatCheck(root: string): { code: number | null; report: string } {
  const r = spawnSync(process.execPath, [BIOME, 'format', '--colors=off', '--max-diagnostics=20'], {
    cwd: root,
    encoding: 'utf8',
  });
  return { code: r.status, report: `${r.stdout}${r.stderr}` };
}

/** The files biome.jsonc covers, as git lists them. */
function formattedFiles(): string[] {
  const r = spawnSync('git', ['ls-files', 'src/*.ts', 'test/*.ts', 'test/*.mjs', '*.mjs'], {
    cwd: REPO,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter((f) => f && !f.startsWith('test/fixtures/') && !f.startsWith('test/.scratch/'));
}

test("every file is as Biome's formatter writes it", () => {
  const { code, report } = formatCheck(REPO);
  assert.equal(code, 0, `run \`npm run format\`:\n${report}`);
});

test('the check sees a file the formatter would change', (t) => {
  const root = tempDir(t);
  copyFileSync(join(REPO, 'biome.jsonc'), join(root, 'biome.jsonc'));
  writeFileSync(join(root, 'probe.mjs'), 'export const x = {a:1,\n b : "two"}\n');
  assert.notEqual(formatCheck(root).code, 0);
});

test(`no comment line is wider than ${WIDTH} characters`, () => {
  const wide: string[] = [];
  for (const file of formattedFiles()) {
    readFileSync(join(REPO, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if ([...line].length > WIDTH && /^\s*(\/\/|\/\*|\*)/.test(line)) wide.push(`${file}:${i + 1}`);
      });
  }
  assert.deepEqual(wide, [], 'wrap these comments');
});
