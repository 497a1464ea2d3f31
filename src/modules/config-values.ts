// Reading cloud-config values the way cloud-init's util helpers do (is_true, is_false, get_cfg_option_*).
import type { CloudConfig } from './module';

const TRUE_WORDS = ['true', '1', 'on', 'yes', 'y'];
const FALSE_WORDS = ['off', '0', 'no', 'false'];

/** cloud-init's util.is_true: a real true, or one of its true words. */
export function isTrue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' || typeof value === 'number') return TRUE_WORDS.includes(String(value).trim().toLowerCase());
  return false;
}

/** cloud-init's util.is_false: a real false, or one of its false words. */
export function isFalse(value: unknown): boolean {
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'string' || typeof value === 'number') return FALSE_WORDS.includes(String(value).trim().toLowerCase());
  return false;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** get_cfg_option_bool: the default when the key is absent, else the value read as a boolean. */
export function cfgBool(cfg: CloudConfig, key: string, fallback: boolean): boolean {
  if (!(key in cfg)) return fallback;
  return isTrue(cfg[key]);
}

/** get_cfg_option_str: the default when the key is absent or null, else the value as text. */
export function cfgString(cfg: CloudConfig, key: string, fallback: string): string;
export function cfgString(cfg: CloudConfig, key: string, fallback?: string): string | undefined;
export function cfgString(cfg: CloudConfig, key: string, fallback?: string): string | undefined {
  const v = cfg[key];
  if (v === undefined || v === null) return fallback;
  return typeof v === 'string' ? v : pyString(v);
}

/** get_cfg_option_list: a list stays a list (items as text), a string becomes a one-item list. */
export function cfgList(cfg: CloudConfig, key: string, fallback: string[] = []): string[] {
  const v = cfg[key];
  if (v === undefined || v === null) return fallback;
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : pyString(x)));
  return [typeof v === 'string' ? v : pyString(v)];
}

/** A record under KEY, or an empty one. */
export function cfgRecord(cfg: CloudConfig, key: string): Record<string, unknown> {
  const v = cfg[key];
  return isRecord(v) ? v : {};
}

/** How Python's str() shows a scalar read from YAML (True/False/None), so messages and files match. */
export function pyString(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}
