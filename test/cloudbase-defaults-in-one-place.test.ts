// cloudbase-init's option defaults are written once, in DEFAULT_OPTIONS and SECTION_OPTIONS
// (src/config/cloudbase-init-conf.ts): code reads an option that has one through conf.…Value(), never as
// `conf.bool('x') ?? true`, which repeats the default and drifts from it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_OPTIONS, SECTION_OPTIONS } from '../src/config/cloudbase-init-conf';
import { REPO } from './helpers/repo';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : n.endsWith('.ts') ? [p] : [];
  });
}

test('no read of a cloudbase-init option repeats the default the option table holds', () => {
  const found: string[] = [];
  for (const file of files(join(REPO, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\.(str|bool|int|float|list)\('([a-z_0-9]+)'(?:, '([A-Za-z_]+)')?\)\s*\?\?/g)) {
      const section = m[3] ?? 'DEFAULT';
      const spec = section === 'DEFAULT' ? DEFAULT_OPTIONS[m[2] as string] : SECTION_OPTIONS[section]?.[m[2] as string];
      if (spec?.default !== undefined)
        found.push(`${relative(REPO, file)}: ${m[0]} (use ${m[1]}Value('${m[2]}'${m[3] ? `, '${m[3]}'` : ''}))`);
    }
  }
  assert.deepEqual(found, []);
});
