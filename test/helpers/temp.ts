// Temporary folders for sandbox roots, removed (with whatever is mounted in them) when the test ends.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { removeTree } from './overlay-copy';

export function tempDir(t: TestContext, prefix = 'kiln-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => removeTree(dir));
  return dir;
}
