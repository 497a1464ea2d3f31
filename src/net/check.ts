// Small typed readers for untrusted network config: each names the key it rejects.
import { NetworkConfigError } from './net-error';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: unknown, key: string): Obj {
  if (!isObj(v)) throw new NetworkConfigError(key, `expected a mapping, got ${describe(v)}`);
  return v;
}

export function list(v: unknown, key: string): unknown[] {
  if (!Array.isArray(v)) throw new NetworkConfigError(key, `expected a list, got ${describe(v)}`);
  return v;
}

export function str(v: unknown, key: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new NetworkConfigError(key, `expected a string, got ${describe(v)}`);
}

/** A string or a list of strings (v1 allows both for nameservers and search domains). */
export function strList(v: unknown, key: string): string[] {
  if (typeof v === 'string') return v.split(/\s+/).filter(Boolean);
  return list(v, key).map((x, i) => str(x, `${key}[${i}]`));
}

export function int(v: unknown, key: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n))
    throw new NetworkConfigError(key, `expected an integer, got ${describe(v)}`);
  if (n < min || n > max) throw new NetworkConfigError(key, `${n} is outside ${min}..${max}`);
  return n;
}

const TRUE = new Set(['true', '1', 'on', 'yes']);
const FALSE = new Set(['false', '0', 'off', 'no']);

export function bool(v: unknown, key: string): boolean {
  if (typeof v === 'boolean') return v;
  const s = String(v).toLowerCase();
  if ((typeof v === 'string' || typeof v === 'number') && TRUE.has(s)) return true;
  if ((typeof v === 'string' || typeof v === 'number') && FALSE.has(s)) return false;
  throw new NetworkConfigError(key, `expected true or false, got ${describe(v)}`);
}

/**
 * Keys of O outside ALLOWED: an error naming the first, or, given WARNINGS, one warning each and the key ignored
 * (cloud-init's network_state reads the keys it knows and passes over the rest; its schema check only warns).
 */
export function onlyKeys(o: Obj, allowed: readonly string[], key: string, warnings?: string[]): void {
  for (const k of Object.keys(o)) {
    if (allowed.includes(k)) continue;
    if (!warnings) throw new NetworkConfigError(`${key}.${k}`, `unknown key; expected one of ${allowed.join(', ')}`);
    warnings.push(`${key}.${k}: unknown key, ignored (known: ${allowed.join(', ')})`);
  }
}

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}
