// The command registry sits at the top of the CLI: no file it imports may import it back (statically or lazily).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/repo';

/** The src files FILE imports: `from '…'`, `import '…'` and `import('…')`, relative specifiers only. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)'(\.{1,2}\/[^']+)'/g)) {
    const base = resolve(dirname(file), m[1] as string);
    const found = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
    if (found) out.push(found);
  }
  return out;
}

/** A chain of imports from FROM back to TARGET, or undefined when TARGET is not reachable. */
function pathBack(from: string, target: string, seen = new Set<string>()): string[] | undefined {
  if (seen.has(from)) return undefined;
  seen.add(from);
  for (const next of importsOf(from)) {
    if (next === target) return [from, target];
    const rest = pathBack(next, target, seen);
    if (rest) return [from, ...rest];
  }
  return undefined;
}

test('no import cycle runs through src/cli/registry.ts (all-stages once read it back lazily)', () => {
  const registry = join(REPO, 'src/cli/registry.ts');
  for (const first of importsOf(registry)) {
    const cycle = pathBack(first, registry);
    assert.equal(cycle, undefined, `cycle: ${['src/cli/registry.ts', ...(cycle ?? []).map((p) => relative(REPO, p))].join(' -> ')}`);
  }
});
