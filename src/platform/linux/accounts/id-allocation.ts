// Free user and group ids as shadow-utils' find_new_uid/find_new_gid choose them: a preferred id when free,
// else above the highest id in use (regular accounts) or below the lowest (system accounts), then any gap.
import { defNumber, type AccountDefaults } from './account-defaults';

export interface IdRange {
  min: number;
  max: number;
  /** The lowest id a preferred id may have (1 for system accounts, min otherwise). */
  preferredMin: number;
}

/** Ids that are never handed out: they read as -1 in 16- and 32-bit id types. */
const UNUSABLE = new Set([0xffff, 0xffffffff]);

/** The ids useradd/groupadd hand out for KIND (regular or SYSTEM accounts), from login.defs as DEFS reads it. */
export function idRange(defs: AccountDefaults, kind: 'UID' | 'GID', system: boolean): IdRange {
  if (!system) {
    const min = defNumber(defs, `${kind}_MIN`, 1000);
    return { min, max: defNumber(defs, `${kind}_MAX`, 60000), preferredMin: min };
  }
  const min = Math.max(1, defNumber(defs, `SYS_${kind}_MIN`, 101));
  return { min, max: defNumber(defs, `SYS_${kind}_MAX`, defNumber(defs, `${kind}_MIN`, 1000) - 1), preferredMin: 1 };
}

export function newId(used: Iterable<number>, range: IdRange, system: boolean, preferred?: number): number | undefined {
  const taken = new Set(used);
  const usable = (id: number, min: number) => id >= min && id <= range.max && !UNUSABLE.has(id) && !taken.has(id);
  const free = (id: number) => usable(id, range.min);
  if (preferred !== undefined && usable(preferred, range.preferredMin)) return preferred;
  const inRange = [...taken].filter((id) => id >= range.min && id <= range.max);
  if (system) {
    let start = inRange.length ? Math.min(...inRange) - 1 : range.max;
    if (start < range.min) start = range.max;
    for (let id = start; id >= range.min; id--) if (free(id)) return id;
    for (let id = range.max; id > start; id--) if (free(id)) return id;
    return undefined;
  }
  let start = inRange.length ? Math.max(...inRange) + 1 : range.min;
  if (start > range.max) start = range.min;
  for (let id = start; id <= range.max; id++) if (free(id)) return id;
  for (let id = range.min; id < start; id++) if (free(id)) return id;
  return undefined;
}

/** The first free block of COUNT subordinate ids in [MIN, MAX] (shadow's find_free_range), undefined when none. */
export function freeSubordinateRange(
  ranges: Array<{ start: number; count: number }>,
  min: number,
  max: number,
  count: number,
): number | undefined {
  let low = min;
  for (const r of [...ranges].sort((a, b) => a.start - b.start)) {
    const end = r.start + r.count - 1;
    if (end < low) continue;
    if (r.start > low + count - 1) break;
    low = end + 1;
  }
  return low + count - 1 <= max ? low : undefined;
}
