// Ajv's errors turned into the errors Python's jsonschema (4.19, Debian 13's) yields through cloud-init 25.1's
// validator: jsonschema's messages with Python reprs; for an anyOf that fails, jsonschema's best_match of its
// branches' errors and "... is not valid under any of the given schemas"; for a oneOf, cloud-init's deepest
// matches, or "... is valid under each of ..." when several branches match.
import type { ErrorObject } from 'ajv';
import { pyRepr } from './python-repr';

export interface PyError {
  /** Keys and indexes from the document's root to the value at fault. */
  path: string[];
  /** The keyword that failed (jsonschema's `validator`). */
  validator: string;
  message: string;
  /** The schema node holding the keyword. */
  schema: Record<string, unknown>;
  /** Where the keyword is in the schema ('#/properties/runcmd/type'). */
  schemaPath: string;
  instance: unknown;
  /** For a failed anyOf: its branches' errors. */
  context?: PyError[];
}

type AjvError = ErrorObject & { parentSchema?: Record<string, unknown> };

function isComposite(e: AjvError): boolean {
  return e.keyword === 'anyOf' || e.keyword === 'oneOf';
}

/** A JSON pointer's reference tokens, ~1 and ~0 decoded (Ajv's instancePath). */
export function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Whether E lies inside the branches of the composite error C (same instance or below it, schema path below it). */
function inside(e: AjvError, c: AjvError): boolean {
  if (e === c || !e.schemaPath.startsWith(`${c.schemaPath}/`)) return false;
  return c.instancePath === '' || e.instancePath === c.instancePath || e.instancePath.startsWith(`${c.instancePath}/`);
}

/** The branch of composite C whose schema path E's starts with. */
function branchOf(e: AjvError, c: AjvError): number {
  return Number(e.schemaPath.slice(c.schemaPath.length + 1).split('/')[0]);
}

function pyTypeMatches(v: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string' || v instanceof Uint8Array;
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null || v === undefined;
    case 'array':
      return Array.isArray(v);
    case 'object':
      return (
        v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Date)
      );
    default:
      return false;
  }
}

/** jsonschema's ValidationError._matches_type: whether the instance is of the type the failing node asks for. */
function matchesType(e: PyError): boolean {
  const t = e.schema.type;
  if (t === undefined) return false;
  return [t].flat().some((x) => pyTypeMatches(e.instance, x as string));
}

const WEAK = new Set(['anyOf', 'oneOf']);

/** jsonschema 4.19's relevance key: shallower, not anyOf/oneOf, not of a node whose type the instance has. */
function relevance(e: PyError): number[] {
  return [-e.path.length, WEAK.has(e.validator) ? 0 : 1, 0, matchesType(e) ? 0 : 1];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++)
    if ((a[i] as number) !== (b[i] as number)) return (a[i] as number) - (b[i] as number);
  return 0;
}

/** jsonschema's best_match: the most relevant error, then down its context while one error there is least relevant. */
export function bestMatch(errors: PyError[]): PyError | undefined {
  let best: PyError | undefined;
  for (const e of errors) if (!best || compare(relevance(e), relevance(best)) > 0) best = e;
  while (best?.context?.length) {
    const sorted = [...best.context].sort((a, b) => compare(relevance(a), relevance(b)));
    const [first, second] = sorted;
    if (second && compare(relevance(first as PyError), relevance(second)) === 0) return best;
    best = first;
  }
  return best;
}

/**
 * cloud-init's cloud_init_deepest_matches: for a mapping with a `type`, the branch of that type; else the deepest
 * errors.
 */
function deepestMatches(errors: PyError[], instance: unknown, base: number): PyError[] {
  const typed = instance !== null && typeof instance === 'object' && !Array.isArray(instance) && 'type' in instance;
  let best: PyError[] = [];
  let depth = 0;
  for (const e of errors) {
    if (typed) {
      const wanted = (e.schema.properties as Record<string, { enum?: unknown[] }> | undefined)?.type?.enum ?? [];
      if (wanted.includes((instance as { type: unknown }).type)) return [e];
      const jsonPath = `$${e.path
        .slice(base)
        .map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`))
        .join('')}`;
      if (jsonPath.endsWith('type')) best.push(e);
    } else if (e.path.length - base === depth) best.push(e);
    else if (e.path.length - base > depth) {
      depth = e.path.length - base;
      best = [e];
    }
  }
  return best;
}

function limitMessage(e: AjvError, instance: unknown): string {
  const schema = e.parentSchema ?? {};
  const r = pyRepr(instance);
  switch (e.keyword) {
    case 'type':
      return `${r} is not of type ${[schema.type]
        .flat()
        .map((t) => pyRepr(t))
        .join(', ')}`;
    case 'enum':
      return `${r} is not one of ${pyRepr(schema.enum)}`;
    case 'required':
      return `${pyRepr((e.params as { missingProperty: string }).missingProperty)} is a required property`;
    case 'maxLength':
      return `${r} is too long`;
    case 'minLength':
      return `${r} is too short`;
    case 'maximum':
      return `${r} is greater than the maximum of ${pyRepr(schema.maximum)}`;
    case 'minItems':
      return `${r} is too short`;
    case 'maxItems':
      return `${r} is too long`;
    case 'minProperties':
      return `${r} does not have enough properties`;
    case 'uniqueItems':
      return `${r} has non-unique elements`;
    case 'minimum':
      return `${r} is less than the minimum of ${pyRepr(schema.minimum)}`;
    case 'pattern':
      return `${r} does not match ${pyRepr(schema.pattern)}`;
    default:
      return `${r}: ${e.message ?? e.keyword}`;
  }
}

/**
 * Errors outside any failed anyOf/oneOf, as jsonschema words them (all unexpected keys of one mapping in one error).
 */
function plainErrors(errors: AjvError[], data: unknown): PyError[] {
  const out: PyError[] = [];
  const extras = new Map<string, { e: AjvError; names: string[] }>();
  for (const e of errors) {
    const path = pointerSegments(e.instancePath);
    const instance = valueAt(data, path);
    if (e.keyword === 'additionalProperties') {
      const key = `${e.instancePath}\0${e.schemaPath}`;
      const name = (e.params as { additionalProperty: string }).additionalProperty;
      const group = extras.get(key);
      if (group) group.names.push(name);
      else extras.set(key, { e, names: [name] });
      continue;
    }
    out.push({
      path,
      validator: e.keyword,
      message: limitMessage(e, instance),
      schema: e.parentSchema ?? {},
      schemaPath: e.schemaPath,
      instance,
    });
  }
  for (const { e, names } of extras.values()) {
    const schema = e.parentSchema ?? {};
    const path = pointerSegments(e.instancePath);
    const sorted = [...names].sort();
    const joined = sorted.map((n) => pyRepr(n)).join(', ');
    const patterns = schema.patternProperties as Record<string, unknown> | undefined;
    const message = patterns
      ? `${joined} ${sorted.length === 1 ? 'does' : 'do'} not match any of the regexes: ${Object.keys(patterns)
          .sort()
          .map((p) => pyRepr(p))
          .join(', ')}`
      : `Additional properties are not allowed (${joined} ${sorted.length === 1 ? 'was' : 'were'} unexpected)`;
    out.push({
      path,
      validator: 'additionalProperties',
      message,
      schema,
      schemaPath: e.schemaPath,
      instance: valueAt(data, path),
    });
  }
  return out;
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let v = value;
  for (const s of path) v = Array.isArray(v) ? v[Number(s)] : (v as Record<string, unknown> | undefined)?.[s];
  return v;
}

/** The `type` of a mapping that has one, as Python formats it into a string. */
function typeOfMapping(instance: unknown): string | undefined {
  if (instance === null || typeof instance !== 'object' || Array.isArray(instance) || !('type' in instance))
    return undefined;
  const t = (instance as { type: unknown }).type;
  return typeof t === 'string' ? t : pyRepr(t);
}

/**
 * Whether BRANCH is an anyOf_type_ branch whose name holds `anyOf_type_<TYPE>` (upstream tests the $ref name with
 * `in`).
 */
function isTypeBranch(branch: unknown, type: string): boolean {
  const title = (branch as { title?: unknown } | null)?.title;
  return typeof title === 'string' && title.startsWith('anyOf_type_') && title.includes(`anyOf_type_${type}`);
}

/** ERRORS (Ajv's, verbose, all of them) as the errors jsonschema yields through cloud-init's validator for DATA. */
export function explainErrors(errors: AjvError[], data: unknown): PyError[] {
  const composites = errors.filter(isComposite);
  const outer = composites.filter((c) => !composites.some((o) => inside(c, o)));
  const out = plainErrors(
    errors.filter((e) => !outer.includes(e) && !outer.some((o) => inside(e, o))),
    data,
  );
  for (const c of outer) {
    const path = pointerSegments(c.instancePath);
    const instance = valueAt(data, path);
    const schema = c.parentSchema ?? {};
    const branches = (c.schema ?? []) as unknown[];
    const members = errors.filter((e) => inside(e, c));
    // cloud-init's oneOf error for an instance several branches accept, the later ones named first.
    const validUnderEach = (first: number, later: number[]) =>
      out.push({
        path,
        validator: 'oneOf',
        message: `${pyRepr(instance)} is valid under each of ${[...later, first].map((i) => pyRepr(branches[i])).join(', ')}`,
        schema,
        schemaPath: c.schemaPath,
        instance,
      });
    const passing = (c.params as { passingSchemas?: number[] | null }).passingSchemas;
    if (c.keyword === 'oneOf' && Array.isArray(passing)) {
      validUnderEach(passing[0] as number, passing.slice(1));
      continue;
    }
    const perBranch = branches.map((_, i) =>
      explainErrors(
        members.filter((e) => branchOf(e, c) === i),
        data,
      ),
    );
    const all = perBranch.flat();
    if (c.keyword === 'anyOf') {
      // A branch whose errors cloud-init's validator all dropped (a oneOf inside it whose deepest matches are none)
      // satisfies the anyOf for cloud-init: nothing is reported.
      if (perBranch.some((errs) => errs.length === 0)) continue;
      // cloud-init's anyOf: for a mapping with a `type`, the errors of the branches named after it (network v1's
      // anyOf_type_<type>, here their title) instead of jsonschema's best match.
      const typed = typeOfMapping(instance);
      const named =
        typed === undefined ? [] : branches.map((b, i) => [b, i] as const).filter(([b]) => isTypeBranch(b, typed));
      if (named.length) for (const [, i] of named) out.push(...(perBranch[i] ?? []));
      else {
        const best = bestMatch(all);
        if (best) out.push(best);
      }
      out.push({
        path,
        validator: 'anyOf',
        message: `${pyRepr(instance)} is not valid under any of the given schemas`,
        schema,
        schemaPath: c.schemaPath,
        instance,
        context: all,
      });
    } else {
      // cloud-init's oneOf takes the first branch left without errors as valid (see the anyOf above); any later one
      // also valid makes "valid under each of".
      const first = perBranch.findIndex((errs) => errs.length === 0);
      if (first >= 0) {
        const later = perBranch.map((errs, i) => (i > first && errs.length === 0 ? i : -1)).filter((i) => i >= 0);
        if (later.length) validUnderEach(first, later);
        continue;
      }
      out.push(...deepestMatches(all, instance, path.length));
    }
  }
  return out;
}
