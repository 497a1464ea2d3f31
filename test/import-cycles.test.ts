// src/ has no import cycles (type-only and lazy imports count) but the ones listed here, and every
// listed one still exists: a cycle broken must leave this list too.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { REPO } from './helpers/repo';

/** Cycles known and not broken yet, each as its files (relative to src/, sorted) joined by ' <-> '. */
const KNOWN_CYCLES: string[] = [];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** Each file's relative imports (static and lazy) and re-exports, resolved to files. */
function importGraph(src: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of tsFiles(src)) {
    const deps: string[] = [];
    // Lazy `import('…')` counts too: a cycle read back at run time is still a cycle.
    for (const m of readFileSync(file, 'utf8').matchAll(
      /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|\bimport\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g,
    )) {
      const target = resolve(dirname(file), (m[1] ?? m[2]) as string);
      const found = [`${target}.ts`, join(target, 'index.ts')].find((c) => existsSync(c));
      if (found) deps.push(found);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** Strongly connected components of more than one file (Tarjan): each is one or more import cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('src/ has no import cycle but the known ones, and each known one still exists', () => {
  const src = join(REPO, 'src');
  const found = cycles(importGraph(src))
    .map((c) =>
      c
        .map((f) => relative(src, f))
        .sort()
        .join(' <-> '),
    )
    .sort();
  assert.deepEqual(found, [...KNOWN_CYCLES].sort());
});
