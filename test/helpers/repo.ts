// Where the repository and its build outputs are, for tests (test/run.mjs sets KILN_REPO).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const REPO = process.env.KILN_REPO ?? process.cwd();
export const DIST = join(REPO, 'dist');
export const FIXTURES = join(REPO, 'test', 'fixtures');

export function builtBinary(name: string): string | undefined {
  const path = join(DIST, name);
  return existsSync(path) ? path : undefined;
}
