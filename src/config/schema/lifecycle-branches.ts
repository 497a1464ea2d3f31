// Where the `lifecycle` nodes of a schema lie among its alternatives. A deprecation counts only when each anyOf/oneOf
// around its node chose the node's branch for the value (the first valid branch of an anyOf, the only valid one of a
// oneOf), so those branches get validators of their own; their list is derived here, the same at build and at run time.

/**
 * An anyOf/oneOf around a lifecycle node: its pointer, the branch the node is in, and how many instance levels the node
 * lies below it.
 */
export interface Alternative {
  pointer: string;
  keyword: 'anyOf' | 'oneOf';
  branch: number;
  branchCount: number;
  levels: number;
}

/** Keywords whose child schema checks a value one level down (followed by a key name for the first two). */
const KEYED_STEPS = new Set(['properties', 'patternProperties']);
const ITEM_STEPS = new Set(['items', 'additionalProperties']);

/** A pointer's segments are escaped as Ajv's schema paths are: JSON pointer escapes, then URI fragment encoding. */
function decodeSegment(s: string): string {
  return decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~');
}

function encodeSegment(s: string): string {
  return encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));
}

/** The schema node at POINTER ('#/a/b') in ROOT. */
export function nodeAt(root: unknown, pointer: string): Record<string, unknown> {
  let node = root;
  for (const part of pointer.split('/').slice(1)) node = (node as Record<string, unknown>)[decodeSegment(part)];
  return node as Record<string, unknown>;
}

/** The alternatives around the node at POINTER, outermost first. */
export function alternativesAround(root: unknown, pointer: string): Alternative[] {
  const parts = pointer.split('/').slice(1).map(decodeSegment);
  const found: Alternative[] = [];
  let node = root as Record<string, unknown>;
  let at = '#';
  for (let i = 0; i < parts.length; i++) {
    const key = parts[i] as string;
    if (KEYED_STEPS.has(key)) {
      for (const a of found) a.levels++;
      const name = parts[++i] as string;
      node = (node[key] as Record<string, Record<string, unknown>>)[name] as Record<string, unknown>;
      at += `/${key}/${encodeSegment(name)}`;
    } else if (ITEM_STEPS.has(key)) {
      for (const a of found) a.levels++;
      node = node[key] as Record<string, unknown>;
      at += `/${key}`;
    } else if (key === 'anyOf' || key === 'oneOf') {
      const branches = node[key] as Record<string, unknown>[];
      const branch = Number(parts[++i]);
      found.push({ pointer: `${at}/${key}`, keyword: key, branch, branchCount: branches.length, levels: 0 });
      node = branches[branch] as Record<string, unknown>;
      at += `/${key}/${branch}`;
    } else {
      node = node[key] as Record<string, unknown>;
      at += `/${encodeSegment(key)}`;
    }
  }
  return found;
}

/** Pointers of every lifecycle node in SCHEMA. */
function lifecycleNodes(schema: unknown, at = '#'): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => lifecycleNodes(s, `${at}/${i}`));
  if (schema === null || typeof schema !== 'object') return [];
  const found: string[] = 'lifecycle' in schema ? [at] : [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'lifecycle' || key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    found.push(...lifecycleNodes(value, `${at}/${encodeSegment(key)}`));
  }
  return found;
}

/** Every branch pointer ('#/…/anyOf/1') whose validator a lifecycle check may ask for, sorted. */
export function lifecycleBranches(root: unknown): string[] {
  const branches = new Set<string>();
  for (const node of lifecycleNodes(root)) {
    for (const a of alternativesAround(root, node))
      for (let i = 0; i < a.branchCount; i++) branches.add(`${a.pointer}/${i}`);
  }
  return [...branches].sort();
}
