// cloud-init's cloud-config merging: the dict/list/str mergers and their `merge_how` options.
import { UserDataError } from './errors';
import { describeError } from '../util/errors';

export interface MergerSpec {
  name: 'dict' | 'list' | 'str';
  options: string[];
}

/** What a cloud-config part merges with when it names no mergers (cloud-init's cloud_config handler default). */
export const PART_DEFAULT_MERGE = 'dict(replace)+list()+str()';
/** What merging whole configs (vendor under user, system under datasource) uses by default. */
export const CONFIG_DEFAULT_MERGE = 'list()+dict()+str()';

const KNOWN = new Set(['dict', 'list', 'str']);
const MERGER_TEXT = /^([a-z_][a-z0-9_]*)\((.*?)\)$/;

/** Parses `dict(replace)+list(append)+str()`; throws with the offending piece named. */
export function parseMergeString(text: string): MergerSpec[] {
  const out: MergerSpec[] = [];
  for (const raw of text.split('+')) {
    const piece = raw.trim().toLowerCase().replace(/-/g, '_');
    if (!piece) continue;
    const m = MERGER_TEXT.exec(piece);
    if (!m) throw new Error(`merger '${raw.trim()}' is not in the form name(option,…)`);
    const name = (m[1] as string).replace(/^m_/, '');
    if (!KNOWN.has(name)) throw new Error(`unknown merger '${name}' (known: dict, list, str)`);
    const options = (m[2] as string)
      .split(',')
      .map((o) => o.trim().toLowerCase())
      .filter(Boolean);
    out.push({ name: name as MergerSpec['name'], options });
  }
  return out;
}

/**
 * Takes `merge_how` (or `merge_type`) out of a config, as a string or a list of {name, settings} or
 * [name, opt…]; returns the mergers it names (empty when none).
 */
export function extractConfigMergers(cfg: Record<string, unknown>): MergerSpec[] {
  let raw: unknown = cfg.merge_how;
  delete cfg.merge_how;
  if (raw === undefined || raw === null) {
    raw = cfg.merge_type;
    delete cfg.merge_type;
  } else {
    delete cfg.merge_type;
  }
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') return parseMergeString(raw);
  if (!Array.isArray(raw)) throw new Error(`merge_how must be a string or a list, not ${typeof raw}`);
  const out: MergerSpec[] = [];
  for (const item of raw) {
    let name: unknown;
    let options: unknown;
    if (item && typeof item === 'object' && !Array.isArray(item)) {
      name = (item as Record<string, unknown>).name;
      options = (item as Record<string, unknown>).settings ?? [];
    } else if (Array.isArray(item)) {
      name = item[0];
      options = item.slice(1);
    } else {
      throw new Error(`merge_how entry ${JSON.stringify(item)} is neither {name, settings} nor a list`);
    }
    if (typeof name !== 'string' || !name.trim()) throw new Error('merge_how entry without a name');
    const n = name.replace(/-/g, '_').trim().toLowerCase().replace(/^m_/, '');
    if (!KNOWN.has(n)) throw new Error(`unknown merger '${n}' in merge_how (known: dict, list, str)`);
    if (!Array.isArray(options)) throw new Error(`merge_how settings for '${n}' must be a list`);
    out.push({ name: n as MergerSpec['name'], options: options.map((o) => String(o).toLowerCase()) });
  }
  return out;
}

type Value = unknown;

function isDict(v: Value): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A merger built from specs; `merge(old, new)` follows cloud-init's LookupMerger dispatch on the old value's type. */
export class ConfigMerger {
  private readonly dict?: { replace: boolean; recurseStr: boolean; recurseArray: boolean; allowDelete: boolean };
  private readonly list?: {
    method: 'append' | 'prepend' | 'replace' | 'no_replace';
    recurseStr: boolean;
    recurseDict: boolean;
    recurseArray: boolean;
  };
  private readonly str?: { append: boolean };

  constructor(specs: MergerSpec[]) {
    for (const { name, options: o } of specs) {
      const has = (...k: string[]) => k.some((x) => o.includes(x));
      // The first merger of a kind wins, as the first in cloud-init's lookup list does.
      if (name === 'dict' && !this.dict) {
        // cloud-init picks the first of ('replace', 'no_replace') present: replace wins when both are given.
        this.dict = {
          replace: o.includes('replace'),
          recurseStr: has('recurse_str'),
          recurseArray: has('recurse_array', 'recurse_list'),
          allowDelete: has('allow_delete'),
        };
      } else if (name === 'list' && !this.list) {
        const method =
          (['append', 'prepend', 'replace', 'no_replace'] as const).find((m) => o.includes(m)) ?? 'replace';
        this.list = {
          method,
          recurseStr: has('recurse_str'),
          recurseDict: has('recurse_dict'),
          recurseArray: has('recurse_array', 'recurse_list'),
        };
      } else if (name === 'str' && !this.str) {
        this.str = { append: o.includes('append') };
      }
    }
  }

  static from(text: string): ConfigMerger {
    return new ConfigMerger(parseMergeString(text));
  }

  merge(oldV: Value, newV: Value): Value {
    if (isDict(oldV)) return this.dict ? this.onDict(oldV, newV) : oldV;
    if (Array.isArray(oldV)) return this.list ? this.onList(oldV, newV) : oldV;
    if (typeof oldV === 'string') return this.str ? this.onStr(oldV, newV) : oldV;
    // No merger for this type (numbers, booleans, null): cloud-init keeps the old value.
    return oldV;
  }

  private onDict(oldV: Record<string, unknown>, newV: Value): Value {
    const d = this.dict as NonNullable<ConfigMerger['dict']>;
    if (!isDict(newV)) return oldV;
    const out: Record<string, unknown> = { ...oldV };
    for (const [k, v] of Object.entries(newV)) {
      if (!(k in out)) {
        out[k] = v;
        continue;
      }
      if (v === null && d.allowDelete) {
        delete out[k];
        continue;
      }
      if (d.replace) out[k] = v;
      else if (Array.isArray(v) && d.recurseArray) out[k] = this.merge(out[k], v);
      else if (typeof v === 'string' && d.recurseStr) out[k] = this.merge(out[k], v);
      else if (isDict(v)) out[k] = this.merge(out[k], v);
    }
    return out;
  }

  private onList(oldV: unknown[], newV: Value): Value {
    const l = this.list as NonNullable<ConfigMerger['list']>;
    if (!Array.isArray(newV)) return l.method === 'replace' ? newV : oldV;
    if (l.method === 'prepend') return [...newV, ...oldV];
    if (l.method === 'append') return [...oldV, ...newV];
    const out = [...oldV];
    for (let i = 0; i < Math.min(out.length, newV.length); i++) {
      const nv = newV[i];
      if (l.method === 'no_replace') continue;
      if (Array.isArray(nv) && l.recurseArray) out[i] = this.merge(out[i], nv);
      else if (typeof nv === 'string' && l.recurseStr) out[i] = this.merge(out[i], nv);
      else if (isDict(nv) && l.recurseDict) out[i] = this.merge(out[i], nv);
      else out[i] = nv;
    }
    return out;
  }

  private onStr(oldV: string, newV: Value): Value {
    const s = this.str as NonNullable<ConfigMerger['str']>;
    if (typeof newV !== 'string') return newV;
    return s.append ? oldV + newV : newV;
  }
}

/**
 * Merges one cloud-config part into the accumulated config as cloud-init's cloud_config handler does:
 * mergers from the part's own `merge_how`/`merge_type`, then its `Merge-Type` header, else the default.
 */
export function mergeCloudConfigPart(
  acc: Record<string, unknown>,
  part: Record<string, unknown>,
  header: string | undefined,
  partName: string,
): Record<string, unknown> {
  const cfg = { ...part };
  let specs: MergerSpec[];
  try {
    specs = [...extractConfigMergers(cfg), ...(header ? parseMergeString(header) : [])];
  } catch (err) {
    throw new UserDataError(partName, `bad merge_how/Merge-Type: ${describeError(err)}`);
  }
  const merger = new ConfigMerger(specs.length > 0 ? specs : parseMergeString(PART_DEFAULT_MERGE));
  return merger.merge(acc, cfg) as Record<string, unknown>;
}

/** cloud-init's mergemanydict: the first config has priority; each may carry its own merge_how. */
export function mergeManyConfigs(configs: Array<Record<string, unknown> | undefined>): Record<string, unknown> {
  let merged: Record<string, unknown> = {};
  for (const c of configs) {
    if (!c || Object.keys(c).length === 0) continue;
    const cfg = { ...c };
    const specs = extractConfigMergers(cfg);
    merged = new ConfigMerger(specs.length > 0 ? specs : parseMergeString(CONFIG_DEFAULT_MERGE)).merge(
      merged,
      cfg,
    ) as Record<string, unknown>;
  }
  return merged;
}
