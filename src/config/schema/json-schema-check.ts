// Checks a value against one of kiln's JSON Schema documents with Ajv, and reports what cloud-init 25.1's
// jsonschema-based validator reports: its errors in its words (jsonschema's messages, its choice of the best
// error of an anyOf, the deepest ones of a oneOf) and its deprecations, which are never errors.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { explainErrors, type PyError } from './jsonschema-errors';

export interface SchemaFinding {
  /** Dotted path of the value at fault: 'users.0.shell'; a top-level key alone is named for an unknown one. */
  path: string;
  /** The keys and indexes the path joins, to find the value in the document. */
  segments: string[];
  message: string;
  kind: 'error' | 'deprecation';
}

interface Lifecycle {
  change: 'Deprecated' | 'Changed';
  version: string;
  description: string;
}

/** An anyOf/oneOf between the schema root and a node, with how many instance levels the node lies below it. */
interface Enclosing {
  owner: Record<string, unknown>;
  keyword: 'anyOf' | 'oneOf';
  branch: number;
  depth: number;
}

/** Where each node with a `lifecycle` sits: the anyOf/oneOf branches that must be the chosen ones for it to count. */
const enclosingOf = new WeakMap<object, Enclosing[]>();

/** Child schemas one instance level down. */
const INSTANCE_STEPS = new Set(['properties', 'patternProperties']);

/**
 * A copy of SCHEMA in which no node object is shared (so that Ajv's schema paths and the nodes they lead to are
 * one-to-one), recording for each lifecycle node the alternatives it lies in.
 */
function unshared(schema: unknown, depth = 0, enclosing: Enclosing[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((s) => unshared(s, depth, enclosing));
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (INSTANCE_STEPS.has(key) && value && typeof value === 'object') {
      copy[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unshared(v, depth + 1, enclosing)]));
    } else if ((key === 'items' || key === 'additionalProperties') && value && typeof value === 'object') {
      copy[key] = unshared(value, depth + 1, enclosing);
    } else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      copy[key] = value.map((branch, i) => unshared(branch, depth, [...enclosing, { owner: copy, keyword: key, branch: i, depth }]));
    } else if (key === 'lifecycle' || key === 'enum') {
      copy[key] = value;
    } else {
      copy[key] = unshared(value, depth, enclosing);
    }
  }
  if ('lifecycle' in copy) enclosingOf.set(copy, enclosing.map((e) => ({ ...e, depth: depth - e.depth })));
  return copy;
}

interface Reached {
  node: Record<string, unknown>;
  instancePath: string;
}

let reached: Reached[] | undefined;

function newAjv(): Ajv {
  // allErrors: every error, as jsonschema's iter_errors; verbose: the schema node of each; formats unchecked
  // (cloud-init's uri and hostname formats need Python packages Debian's cloud-init does not pull in).
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: false, validateFormats: false });
  ajv.addKeyword({
    keyword: 'lifecycle',
    schemaType: 'object',
    errors: false,
    validate(_lifecycle: unknown, _data: unknown, parentSchema?: unknown, dataCxt?: { instancePath: string }) {
      if (reached && parentSchema && dataCxt) reached.push({ node: parentSchema as Record<string, unknown>, instancePath: dataCxt.instancePath });
      return true;
    },
  });
  return ajv;
}

export interface CompiledSchema {
  root: Record<string, unknown>;
  ajv: Ajv;
  validate: ValidateFunction;
  /** Validators of single anyOf/oneOf branches, made when a lifecycle node inside one is reached. */
  branches: WeakMap<object, ValidateFunction>;
}

/** SCHEMA compiled once (Ajv generates and compiles its validating code: the cost the first check pays). */
export function compileSchema(schema: object): CompiledSchema {
  const root = unshared(schema) as Record<string, unknown>;
  const ajv = newAjv();
  return { root, ajv, validate: ajv.compile(root), branches: new WeakMap() };
}

function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
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
  if (value && typeof value === 'object' && !(value instanceof Date)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forValidation(v)]));
  return value;
}

/** Whether a reached lifecycle node counts: every alternative it lies in chose its branch (the first valid one of an anyOf, the only valid one of a oneOf). */
function counts(compiled: CompiledSchema, data: unknown, r: Reached): boolean {
  const segments = pointerSegments(r.instancePath);
  for (const e of enclosingOf.get(r.node) ?? []) {
    const at = valueAt(data, segments.slice(0, segments.length - e.depth));
    const branches = e.owner[e.keyword] as object[];
    const valid = (i: number): boolean => {
      const branch = branches[i] as object;
      let v = compiled.branches.get(branch);
      if (!v) {
        v = compiled.ajv.compile(branch);
        compiled.branches.set(branch, v);
      }
      return v(at) as boolean;
    };
    if (!valid(e.branch)) return false;
    const others = e.keyword === 'anyOf' ? branches.slice(0, e.branch).map((_, i) => i) : branches.map((_, i) => i).filter((i) => i !== e.branch);
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
    return seen.has(key) ? false : (seen.add(key), true);
  });
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
}

/** What cloud-init's validator names the path of a problem: the keys and indexes joined with dots, an unknown top-level key by itself. */
function problemPath(e: PyError, root: object): string {
  if (e.path.length === 0 && e.validator === 'additionalProperties' && e.schema === root) {
    const one = /.*\('(.*)' was unexpected\)/.exec(e.message);
    if (one) return one[1] as string;
  }
  return e.path.join('.');
}

/** DATA's errors and deprecations against COMPILED, each list sorted by path and message, without repeats (as cloud-init's SchemaValidationError). */
export function checkValue(compiled: CompiledSchema, data: unknown): SchemaFinding[] {
  const input = forValidation(data);
  reached = [];
  let valid: boolean;
  let touched: Reached[];
  try {
    valid = compiled.validate(input) as boolean;
  } finally {
    touched = reached;
    reached = undefined;
  }
  const errors: SchemaFinding[] = valid
    ? []
    : explainErrors((compiled.validate.errors ?? []) as ErrorObject[], data).map((e) => {
        const path = problemPath(e, compiled.root);
        return { path, segments: e.path.length === 0 && path !== '' ? [path] : e.path, message: e.message, kind: 'error' as const };
      });
  const deprecations = touched
    .filter((r) => counts(compiled, input, r))
    .map((r) => {
      const segments = pointerSegments(r.instancePath);
      return { path: segments.join('.'), segments, message: lifecycleMessage(r.node), kind: 'deprecation' as const };
    });
  return [...sortedUnique(errors), ...sortedUnique(deprecations)];
}
