// Checks a cloud-config document against the schema; every error names the key path, line and column.
import { isMap, isSeq, LineCounter, type Node as YamlNode } from 'yaml';
import { parseYamlDocument, yamlDocumentValue, YamlError } from './read-yaml';
import { CLOUD_CONFIG_SCHEMA, type SchemaNode, type SchemaType } from './cloud-config-schema';

export interface SchemaProblem {
  /** Dotted key path: 'users.0.shell', 'runcmd'. */
  path: string;
  message: string;
  line: number;
  column: number;
  kind: 'error' | 'deprecation';
}

export interface ValidationResult {
  problems: SchemaProblem[];
  /** A YAML syntax error or a missing header stops validation. */
  fatal?: string;
}

function typeOf(v: unknown): SchemaType {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v as SchemaType;
}

function typeMatches(v: unknown, t: SchemaType): boolean {
  const actual = typeOf(v);
  return actual === t || (t === 'number' && actual === 'integer');
}

function describe(v: unknown): string {
  return typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
}

/** Problems of VALUE against NODE; `at(path)` gives the position of a key path in the source. */
function check(value: unknown, node: SchemaNode, path: string[], out: Array<{ path: string[]; message: string; kind: 'error' | 'deprecation' }>): void {
  if (node.deprecated) out.push({ path, message: `Deprecated: ${node.deprecated}`, kind: 'deprecation' });
  if (node.anyOf) {
    const attempts = node.anyOf.map((alt) => {
      const sub: typeof out = [];
      check(value, alt, path, sub);
      return sub.filter((p) => p.kind === 'error');
    });
    if (attempts.some((a) => a.length === 0)) return;
    // An alternative whose type matched explains best (of several, the one with the fewest errors: a user
    // mapping that names neither `name` nor `snapuser` is told of the first); otherwise list the accepted types.
    let typed = -1;
    node.anyOf.forEach((alt, i) => {
      const matches = alt.type !== undefined && [alt.type].flat().some((t) => typeMatches(value, t));
      if (matches && (typed < 0 || (attempts[i] as unknown[]).length < (attempts[typed] as unknown[]).length)) typed = i;
    });
    if (typed >= 0) out.push(...(attempts[typed] ?? []));
    else out.push({ path, message: `${describe(value)} is not valid under any of the given schemas (expected ${node.anyOf.map((a) => [a.type ?? 'value'].flat().join('/')).join(', ')})`, kind: 'error' });
    return;
  }
  if (node.type !== undefined) {
    const types = [node.type].flat();
    if (!types.some((t) => typeMatches(value, t))) {
      out.push({ path, message: `${describe(value)} is not of type ${types.map((t) => `'${t}'`).join(', ')}`, kind: 'error' });
      return;
    }
  }
  if (node.enum && !node.enum.includes(value)) {
    out.push({ path, message: `${describe(value)} is not one of ${JSON.stringify(node.enum)}`, kind: 'error' });
    return;
  }
  if (Array.isArray(value) && node.items) value.forEach((item, i) => check(item, node.items as SchemaNode, [...path, String(i)], out));
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const rec = value as Record<string, unknown>;
    for (const [k, v] of Object.entries(rec)) {
      const prop = node.properties?.[k];
      if (prop) check(v, prop, [...path, k], out);
      else if (node.additionalProperties === false) out.push({ path: [...path, k], message: `Additional properties are not allowed ('${k}' was unexpected)`, kind: 'error' });
      else if (typeof node.additionalProperties === 'object') check(v, node.additionalProperties, [...path, k], out);
    }
    // jsonschema's message, at the mapping's own key (where the missing key belongs).
    for (const k of node.required ?? []) if (!Object.hasOwn(rec, k)) out.push({ path, message: `'${k}' is a required property`, kind: 'error' });
  }
}

/** Position (1-based) of the node at PATH: the key for mapping entries, the item for list entries. */
function positionOf(doc: YamlNode | null | undefined, path: string[], lc: LineCounter): { line: number; column: number } {
  let node: unknown = doc;
  let pos: number | undefined = (doc as { range?: [number] } | null)?.range?.[0];
  for (const part of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => String((p.key as { value?: unknown } | null)?.value ?? p.key) === part);
      if (!pair) break;
      pos = (pair.key as { range?: [number] } | null)?.range?.[0] ?? pos;
      node = pair.value;
    } else if (isSeq(node)) {
      const item = node.items[Number(part)];
      if (item === undefined) break;
      pos = (item as { range?: [number] } | null)?.range?.[0] ?? pos;
      node = item;
    } else break;
  }
  const p = lc.linePos(pos ?? 0);
  return { line: p.line, column: p.col };
}

export function validateCloudConfig(text: string, opts: { requireHeader?: boolean } = {}): ValidationResult {
  if (opts.requireHeader !== false && !/^#cloud-config\s*$/m.test(text.split('\n')[0] ?? '')) {
    return { problems: [], fatal: 'Cloud-config needs to begin with "#cloud-config" on its first line' };
  }
  const lc = new LineCounter();
  // The same reading as a boot's (read-yaml.ts), so that `0644` or `on` is checked as the modules will see it.
  const doc = parseYamlDocument(text, lc);
  let value: unknown;
  try {
    value = yamlDocumentValue(doc, 'cloud-config', lc);
  } catch (err) {
    if (!(err instanceof YamlError)) throw err;
    return { problems: [], fatal: `File is not valid YAML. ${err.line === undefined ? '' : `in line ${err.line} column ${err.column}: `}${err.reason}` };
  }
  if (value === null || value === undefined) return { problems: [] };
  if (typeOf(value) !== 'object') return { problems: [], fatal: `Cloud-config is not a YAML dict (found ${typeOf(value)})` };
  const raw: Array<{ path: string[]; message: string; kind: 'error' | 'deprecation' }> = [];
  check(value, CLOUD_CONFIG_SCHEMA, [], raw);
  return {
    problems: raw.map((r) => ({ path: r.path.join('.'), message: r.message, kind: r.kind, ...positionOf(doc.contents as YamlNode, r.path, lc) })),
  };
}

/** cloud-init's --annotate: the document with `# E1,E2` marks on the lines at fault and the errors listed below. */
export function annotate(text: string, problems: SchemaProblem[]): string {
  const lines = text.replace(/\n$/, '').split('\n');
  const marks = new Map<number, string[]>();
  const footer: string[] = [];
  problems.forEach((p, i) => {
    const tag = `${p.kind === 'error' ? 'E' : 'D'}${i + 1}`;
    marks.set(p.line, [...(marks.get(p.line) ?? []), tag]);
    footer.push(`# ${tag}: ${p.path}: ${p.message}`);
  });
  const body = lines.map((l, i) => (marks.has(i + 1) ? `${l}\t\t# ${(marks.get(i + 1) as string[]).join(',')}` : l));
  return `${body.join('\n')}\n\n# Errors: -------------\n${footer.join('\n')}\n\n`;
}
