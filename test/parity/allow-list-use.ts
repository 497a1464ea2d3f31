// Records which allow-list entries excused a difference across the parity runs, so stale entries fail a test.
import type { AllowedDifference, Difference, DifferenceKind } from './compare-trees';

/** What an entry may be used for: one of its kinds, or its normaliser. */
type Use = DifferenceKind | 'normalize';

export class AllowListUse {
  private readonly used = new Map<AllowedDifference, Set<Use>>();
  /** The comparisons recorded, by seed name. */
  readonly seeds = new Set<string>();

  record(seed: string, diffs: Difference[]): void {
    this.seeds.add(seed);
    for (const d of diffs) {
      for (const rule of d.excusedBy ?? []) {
        const uses = this.used.get(rule) ?? new Set<Use>();
        uses.add(d.normalised ? 'normalize' : d.kind);
        this.used.set(rule, uses);
      }
    }
  }

  /**
   * One line per part of RULES that excused nothing: an entry's normaliser, or a kind it lists. An entry
   * left over is no longer needed (or is wider than it needs to be) and must go.
   */
  unused(rules: AllowedDifference[]): string[] {
    const out: string[] = [];
    for (const rule of rules) {
      const uses = this.used.get(rule) ?? new Set<Use>();
      const name = `${rule.path}${rule.seeds ? ` (seeds ${rule.seeds})` : ''}`;
      if (rule.normalize && !uses.has('normalize'))
        out.push(`${name}: its normaliser changed no compared file (${rule.reason})`);
      for (const kind of rule.kinds === 'any' ? [] : rule.kinds) {
        if (!uses.has(kind)) out.push(`${name}: no '${kind}' difference on its paths (${rule.reason})`);
      }
      if (rule.kinds === 'any' && uses.size === 0) out.push(`${name}: excused nothing (${rule.reason})`);
    }
    return out;
  }
}
