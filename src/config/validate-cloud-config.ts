// Checks a cloud-config document against the schema; every error names the key path, line and column.
import { isMap, isSeq, LineCounter, type Node as YamlNode } from 'yaml';
import { parseYamlDocument, yamlDocumentValue, YamlError } from './read-yaml';
import { checkValue } from './schema/json-schema-check';
import { prebuiltValidators } from './schema/prebuilt-validators';
import type { SchemaValidators } from './schema/schema-validators';

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
  /** Where the YAML syntax error is, and what it is: cloud-init's `format-lL.cC` problem. */
  yamlError?: { line: number; column: number; reason: string };
}

/** The validators generated at build time, made ready on first use. */
let prebuilt: SchemaValidators | undefined;

export function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** Position (1-based) of the node at PATH: the key for mapping entries, the item for list entries. */
function positionOf(
  doc: YamlNode | null | undefined,
  path: string[],
  lc: LineCounter,
): { line: number; column: number } {
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

/** A document read for checking: its value, and how to place a problem on its line and column. */
export interface SchemaDocument {
  value: unknown;
  /** VALIDATORS' problems with VALUE, each at the line and column of its key or item. */
  problems(validators: SchemaValidators): SchemaProblem[];
}

/**
 * TEXT read as a boot reads config (read-yaml.ts), so that `0644` or `on` is checked as the modules will see it; a
 * YAML error is the fatal message cloud-init prints. WHAT names the document in errors.
 */
export function readSchemaDocument(
  text: string,
  what: string,
): SchemaDocument | { fatal: string; yamlError: NonNullable<ValidationResult['yamlError']> } {
  const lc = new LineCounter();
  const doc = parseYamlDocument(text, lc);
  let value: unknown;
  try {
    value = yamlDocumentValue(doc, what, lc);
  } catch (err) {
    if (!(err instanceof YamlError)) throw err;
    return {
      fatal: `File is not valid YAML. ${err.line === undefined ? '' : `in line ${err.line} column ${err.column}: `}${err.reason}`,
      yamlError: { line: err.line ?? 1, column: err.column ?? 1, reason: err.reason },
    };
  }
  return {
    value,
    problems: (validators) =>
      checkValue(validators, value).map(({ segments, ...f }) => ({
        ...f,
        ...positionOf(doc.contents as YamlNode, segments, lc),
      })),
  };
}

/**
 * TEXT checked against the cloud-config schema, by the validators generated at build time unless VALIDATORS are given
 * (those compiled at run time: KILN_SCHEMA_COMPILE=runtime, see load-validators.ts).
 */
export function validateCloudConfig(
  text: string,
  opts: { requireHeader?: boolean; validators?: SchemaValidators } = {},
): ValidationResult {
  if (opts.requireHeader !== false && !/^#cloud-config\s*$/m.test(text.split('\n')[0] ?? '')) {
    return { problems: [], fatal: 'Cloud-config needs to begin with "#cloud-config" on its first line' };
  }
  const read = readSchemaDocument(text, 'cloud-config');
  if ('fatal' in read) return { problems: [], fatal: read.fatal, yamlError: read.yamlError };
  const { value } = read;
  if (value === null || value === undefined) return { problems: [] };
  if (typeof value !== 'object' || Array.isArray(value) || value instanceof Uint8Array || value instanceof Date) {
    return { problems: [], fatal: `Cloud-config is not a YAML dict (found ${typeName(value)})` };
  }
  return { problems: read.problems(opts.validators ?? (prebuilt ??= prebuiltValidators('cloudConfig'))) };
}

/**
 * cloud-init's --annotate: the document with `# E1,D1` marks on the lines at fault, numbered down the document,
 * then the errors and the deprecations listed under their own headings (as 25.1's _Annotator).
 */
export function annotate(text: string, problems: SchemaProblem[]): string {
  if (problems.length === 0) return text;
  const byLine = (kind: SchemaProblem['kind']) => {
    const m = new Map<number, string[]>();
    for (const p of problems) if (p.kind === kind) m.set(p.line, [...(m.get(p.line) ?? []), p.message]);
    return m;
  };
  const errors = byLine('error');
  const deprecations = byLine('deprecation');
  const footers = { E: [] as string[], D: [] as string[] };
  const body = text.split('\n').map((line, i) => {
    const labels: string[] = [];
    for (const [prefix, marks] of [
      ['E', errors],
      ['D', deprecations],
    ] as const) {
      for (const message of marks.get(i + 1) ?? []) {
        const label = `${prefix}${footers[prefix].length + 1}`;
        labels.push(label);
        footers[prefix].push(`# ${label}: ${message}`);
      }
    }
    return labels.length ? `${line}\t\t# ${labels.join(',')}` : line;
  });
  if (footers.E.length) body.push(`# Errors: -------------\n${footers.E.join('\n')}\n\n`);
  if (footers.D.length) body.push(`# Deprecations: -------------\n${footers.D.join('\n')}\n\n`);
  return body.join('\n');
}
