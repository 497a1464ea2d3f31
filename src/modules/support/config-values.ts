// Reading typed values out of cloud-config the way cloud-init's util.get_cfg_option_* and is_true/is_false do.
import { ModuleError } from '../module';

const TRUE_WORDS = new Set(['true', '1', 'on', 'yes']);
const FALSE_WORDS = new Set(['off', '0', 'no', 'false']);

/** cloud-init's util.is_true: booleans, and the words true/1/on/yes (case-insensitive). */
export function isTrue(value: unknown, addons: string[] = []): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1;
  if (typeof value !== 'string') return false;
  const v = value.trim().toLowerCase();
  return TRUE_WORDS.has(v) || addons.includes(v);
}

/** cloud-init's util.is_false. */
export function isFalse(value: unknown, addons: string[] = []): boolean {
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'number') return value === 0;
  if (typeof value !== 'string') return false;
  const v = value.trim().toLowerCase();
  return FALSE_WORDS.has(v) || addons.includes(v);
}

/** get_cfg_option_bool: absent → DEFAULT, otherwise is_true. */
export function cfgBool(cfg: Record<string, unknown>, key: string, dflt: boolean): boolean {
  if (!(key in cfg) || cfg[key] === null || cfg[key] === undefined) return dflt;
  return isTrue(cfg[key]);
}

/** get_cfg_option_str: absent → DEFAULT; non-strings are stringified as Python's str() would for scalars. */
export function cfgString(cfg: Record<string, unknown>, key: string): string | undefined {
  const v = cfg[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return undefined;
}

/** get_cfg_option_list: a list stays a list (items stringified), a string becomes a one-item list. */
export function cfgList(cfg: Record<string, unknown>, key: string): string[] | undefined {
  const v = cfg[key];
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : String(x)));
  if (typeof v === 'string') return [v];
  return [String(v)];
}

/** A mapping under KEY, or undefined when absent; MODULE names the error when it is some other type. */
export function cfgMap(module: string, cfg: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const v = cfg[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v))
    throw new ModuleError(module, `'${key}' must be a mapping, got ${describeType(v)}`);
  return v as Record<string, unknown>;
}

export function describeType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return `a ${typeof v}`;
}

/** Splits a comma-separated string ("a, b,c") into trimmed non-empty parts, as cloud-init does for groups. */
export function splitCommaList(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}
