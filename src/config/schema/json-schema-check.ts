// Checks a value against one of kiln's JSON Schema documents with its Ajv validators (generated at build time or
// compiled at run time: schema-validators.ts), and reports what cloud-init 25.1's jsonschema-based validator reports:
// its errors in its words (jsonschema's messages, its choice of the best error of an anyOf, the deepest ones of a
// oneOf) and its deprecations, which are never errors.
import type { ErrorObject } from 'ajv';
import { explainErrors, pointerSegments, type PyError } from './jsonschema-errors';
import { alternativesAround, nodeAt } from './lifecycle-branches';
import type { LifecycleRecorder, ReachedLifecycle, SchemaValidators } from './schema-validators';
export interface SchemaFinding {
  /** Dotted path of the value at fault: 'users.0.shell'; a top-level key alone is named for an unknown one. */
  path: string;
  /** The keys and indexes the path joins, to find the value in the document. */
  segments: string[];
  message: string;
  kind: 'error' | 'deprecation';
  /** For an error, the schema keyword that failed (jsonschema's `validator`: 'type', 'minItems' …). */
  keyword?: string;
}

interface Lifecycle {
  change: 'Deprecated' | 'Changed';
  version: string;
  description: string;
}

function valueAt(value: unknown, segments: readonly string[]): unknown {
  let v = value;
  for (const s of segments) v = Array.isArray(v) ? v[Number(s)] : (v as Record<string, unknown> | undefined)?.[s];
  return v;
}

/** VALUE with bytes (YAML's !!binary) as strings: cloud-init's validator takes bytes wherever a string is allowed. */
function forValidation(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('latin1');
  if (Array.isArray(value)) return value.map(forValidation);
  if (value && typeof value === 'object' && !(value instanceof Date))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forValidation(v)]));
  return value;
}

/**
 * Whether a reached lifecycle node counts: every alternative it lies in chose its branch (the first valid one of an
 * anyOf, the only valid one of a oneOf).
 */
function counts(validators: SchemaValidators, data: unknown, r: ReachedLifecycle): boolean {
  const segments = pointerSegments(r.instancePath);
  for (const a of alternativesAround(validators.root, r.schemaPath)) {
    const at = valueAt(data, segments.slice(0, segments.length - a.levels));
    const valid = (i: number): boolean => validators.branch(`${a.pointer}/${i}`)(at);
    if (!valid(a.branch)) return false;
    const all = [...Array(a.branchCount).keys()];
    const others = a.keyword === 'anyOf' ? all.slice(0, a.branch) : all.filter((i) => i !== a.branch);
    if (others.some(valid)) return false;
  }
  return true;
}

function lifecycleMessage(node: Record<string, unknown>): string {
  const l = node.lifecycle as Lifecycle;
  // cloud-init puts the node's description first; none of its deprecated or changed nodes has one.
  return ` ${l.change} in version ${l.version}. ${l.description}`.trimEnd();
}

function sortedUnique(findings: SchemaFinding[]): SchemaFinding[] {
  const seen = new Set<string>();
  const out = findings.filter((f) => {
    const key = `${f.path}\0${f.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return out.sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : a.message < b.message ? -1 : a.message > b.message ? 1 : 0,
  );
}

/**
 * What cloud-init's validator names the path of a problem: the keys and indexes joined with dots, an unknown top-level
 * key by itself.
 */
function problemPath(e: PyError): string {
  if (e.path.length === 0 && e.validator === 'additionalProperties' && e.schemaPath === '#/additionalProperties') {
    const one = /.*\('(.*)' was unexpected\)/.exec(e.message);
    if (one) return one[1] as string;
  }
  return e.path.join('.');
}

/**
 * DATA's errors and deprecations against VALIDATORS, each list sorted by path and message, without repeats (as
 * cloud-init's SchemaValidationError).
 */
export function checkValue(validators: SchemaValidators, data: unknown): SchemaFinding[] {
  const input = forValidation(data);
  const recorder: LifecycleRecorder = { reached: [] };
  const valid = validators.validate.call(recorder, input);
  const errors: SchemaFinding[] = valid
    ? []
    : explainErrors((validators.validate.errors ?? []) as ErrorObject[], data).map((e) => {
        const path = problemPath(e);
        return {
          path,
          segments: e.path.length === 0 && path !== '' ? [path] : e.path,
          message: e.message,
          kind: 'error' as const,
          keyword: e.validator,
        };
      });
  const deprecations = recorder.reached
    .filter((r) => counts(validators, input, r))
    .map((r) => {
      const segments = pointerSegments(r.instancePath);
      return {
        path: segments.join('.'),
        segments,
        message: lifecycleMessage(nodeAt(validators.root, r.schemaPath)),
        kind: 'deprecation' as const,
      };
    });
  return [...sortedUnique(errors), ...sortedUnique(deprecations)];
}
