// docs/architecture.md is the map of src/: its folder table says what may import what, and src/ must agree
// with it both ways (no import it does not allow, no allowance nothing uses, no folder it does not name).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { REPO } from './helpers/repo';

const SRC = join(REPO, 'src');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** The unit a file belongs to, as the table names it: its top folder under src/ ('cli/') or its own name ('main.ts'). */
function unitOf(file: string): string {
  const rel = relative(SRC, file).split('/');
  return rel.length > 1 ? `${rel[0]}/` : (rel[0] as string);
}

/** Every unit → the other units it imports from (relative imports and re-exports, type-only ones included). */
function importsByUnit(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of tsFiles(SRC)) {
    const from = unitOf(file);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
      const target = resolve(dirname(file), (m[1] ?? m[2]) as string);
      const found = [`${target}.ts`, join(target, 'index.ts')].find((c) => existsSync(c));
      if (!found) continue;
      const to = unitOf(found);
      if (to !== from) edges.get(from)?.add(to);
    }
  }
  return edges;
}

/** The folder table of docs/architecture.md: unit → the units it may import. */
function mapTable(): Map<string, Set<string>> {
  const doc = readFileSync(join(REPO, 'docs', 'architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Folders'));
  const body = section.slice(0, section.indexOf('\n## ', 4));
  const table = new Map<string, Set<string>>();
  for (const line of body.split('\n')) {
    const cells = line.split(' | ');
    if (!line.startsWith('| `') || cells.length !== 3) continue;
    const unit = /`([^`]+)`/.exec(cells[0] as string)?.[1] as string;
    const allowed = [...(cells[2] as string).matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
    table.set(unit, new Set(allowed));
  }
  return table;
}

test("docs/architecture.md's folder table names every folder and top-level file of src/", () => {
  const table = mapTable();
  assert.ok(table.size >= 10, `read ${table.size} rows from the folder table`);
  const units = new Set(readdirSync(SRC).map((n) => (statSync(join(SRC, n)).isDirectory() ? `${n}/` : n)));
  assert.deepEqual([...units].sort(), [...table.keys()].sort());
});

test("src/ imports only what docs/architecture.md's folder table allows, and the table allows nothing unused", () => {
  const table = mapTable();
  const edges = importsByUnit();
  const problems: string[] = [];
  for (const [unit, used] of edges) {
    const allowed = table.get(unit) ?? new Set<string>();
    for (const to of used) if (!allowed.has(to)) problems.push(`${unit} imports ${to}, which the map does not allow`);
    for (const to of allowed) if (!used.has(to)) problems.push(`the map lets ${unit} import ${to}, which it does not`);
  }
  assert.deepEqual(problems, []);
});

test('src/modules/ holds modules at its top (each in the registry), module.ts and registry.ts; no other code', async () => {
  const { MODULES } = await import('../src/modules/registry');
  const dir = join(SRC, 'modules');
  const stray: string[] = [];
  for (const name of readdirSync(dir)) {
    if (statSync(join(dir, name)).isDirectory() || name === 'module.ts' || name === 'registry.ts') continue;
    const text = readFileSync(join(dir, name), 'utf8');
    const exported = [...text.matchAll(/export const (\w+): Module = /g)].map((m) => m[1]);
    if (exported.length === 0) stray.push(`${name} exports no Module`);
  }
  assert.deepEqual(stray, []);
  const files = readdirSync(dir).filter((n) => n.endsWith('.ts') && n !== 'module.ts' && n !== 'registry.ts');
  assert.ok(MODULES.length >= files.length, `${MODULES.length} modules registered for ${files.length} module files`);
});

test('code outside src/platform/ never asks process.platform', () => {
  const offenders = tsFiles(SRC)
    .filter((f) => !relative(SRC, f).startsWith('platform/'))
    .filter((f) => /process\.platform/.test(readFileSync(f, 'utf8')))
    .map((f) => relative(SRC, f));
  assert.deepEqual(offenders, []);
});
