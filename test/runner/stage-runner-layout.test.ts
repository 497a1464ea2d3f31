// The stage runner reads top to bottom (issue 32, item 5): one function restores a cached instance with its source,
// one place builds a module run's input, and no line of it or of the files it was split into is over 120 characters.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/repo';

const RUNNER = join(REPO, 'src/runner');
const read = (name: string) => readFileSync(join(RUNNER, name), 'utf8');

test('no line of the stage runner or of the files it was split into is over 120 characters', () => {
  const files = [
    'stage-runner.ts',
    'cached-source.ts',
    'consume-data.ts',
    'init-local-modules.ts',
    'merged-from-disk.ts',
    'skip-network.ts',
    'stage-network.ts',
  ];
  const long = files.flatMap((name) =>
    read(name)
      .split('\n')
      .flatMap((line, i) => (line.length > 120 ? [`${name}:${i + 1} (${line.length})`] : [])),
  );
  assert.deepEqual(long, []);
});

test('one runner function restores the cached instance and finds its source', () => {
  const callers = readdirSync(RUNNER).filter((name) => name.endsWith('.ts') && read(name).includes('restoreInstance('));
  assert.deepEqual(callers.sort(), ['cached-source.ts', 'instance-cache.ts']);
  assert.equal(read('cached-source.ts').match(/restoreInstance\(/g)?.length, 1);
});

test("the stage runner builds a module run's input in one place", () => {
  assert.equal(read('stage-runner.ts').match(/log: this\.opts\.logger\.for\('modules\.py'\)/g)?.length, 1);
});
