// Compares the tree cloud-init left with the tree kiln left, applying the one allow-list of justified differences.
import type { Tree, TreeEntry } from './tree-snapshot';

export type DifferenceKind = 'only-cloud-init' | 'only-kiln' | 'type' | 'content' | 'mode' | 'owner' | 'link-target';

export interface Difference {
  path: string;
  kind: DifferenceKind;
  detail: string;
  /** The allow-list reason when the difference is justified. */
  allowedBy?: string;
  /**
   * The allow-list entries that justified it: the one whose kinds cover it, or the normalisers without which
   * the contents would still differ (so that each entry can be shown to excuse something).
   */
  excusedBy?: AllowedDifference[];
  /** Set when the contents differ but are equal once normalised: excusedBy then lists normalisers. */
  normalised?: true;
}

/** One justified difference (see allowed-differences.ts): which paths, which kinds, and why. */
export interface AllowedDifference {
  /** Matched against the whole path inside the root. */
  path: RegExp;
  /** The kinds of difference it covers; 'any' covers all. */
  kinds: DifferenceKind[] | 'any';
  /** Applied to both sides' text before contents are compared (hash-insensitive shadow, timestamps …). */
  normalize?: (text: string, path: string) => string;
  /** Only for seeds whose name matches (default: every seed). */
  seeds?: RegExp;
  reason: string;
}

function describeEntry(e: TreeEntry): string {
  return e.type === 'symlink'
    ? `symlink -> ${e.target}`
    : `${e.type} ${e.mode.toString(8).padStart(4, '0')} ${e.uid}:${e.gid} ${e.size} bytes`;
}

/** A short line-level diff of two texts, for the report. */
export function textDiff(a: string, b: string, maxLines = 12): string {
  const al = a.split('\n');
  const bl = b.split('\n');
  const out: string[] = [];
  const n = Math.max(al.length, bl.length);
  for (let i = 0; i < n && out.length < maxLines; i++) {
    if (al[i] !== bl[i]) {
      if (al[i] !== undefined) out.push(`  ${i + 1} cloud-init: ${JSON.stringify(al[i])}`);
      if (bl[i] !== undefined) out.push(`  ${i + 1} kiln:       ${JSON.stringify(bl[i])}`);
    }
  }
  return out.join('\n');
}

function rulesFor(
  path: string,
  kind: DifferenceKind,
  rules: AllowedDifference[],
  seed: string,
): AllowedDifference | undefined {
  return rules.find(
    (r) => r.path.test(path) && (r.kinds === 'any' || r.kinds.includes(kind)) && (!r.seeds || r.seeds.test(seed)),
  );
}

/**
 * Of NORMS, which make two texts equal together, the ones without which they would differ; when none is needed
 * alone (two normalisers that each suffice), those that change either text.
 */
function neededNormalisers(
  a: string,
  b: string,
  norms: AllowedDifference[],
  apply: (t: string, using: AllowedDifference[]) => string,
): AllowedDifference[] {
  const needed = norms.filter((r) => {
    const rest = norms.filter((x) => x !== r);
    return apply(a, rest) !== apply(b, rest);
  });
  if (needed.length > 0) return needed;
  return norms.filter((r) => apply(a, [r]) !== a || apply(b, [r]) !== b);
}

/** Every difference between the two trees, each marked with the allow-list reason that justifies it, if any. */
export function compareTrees(cloudInit: Tree, kiln: Tree, rules: AllowedDifference[], seed = ''): Difference[] {
  const diffs: Difference[] = [];
  const add = (path: string, kind: DifferenceKind, detail: string) => {
    const rule = rulesFor(path, kind, rules, seed);
    diffs.push({ path, kind, detail, ...(rule ? { allowedBy: rule.reason, excusedBy: [rule] } : {}) });
  };
  const paths = [...new Set([...cloudInit.keys(), ...kiln.keys()])].sort();
  for (const path of paths) {
    const a = cloudInit.get(path);
    const b = kiln.get(path);
    if (!b) {
      add(path, 'only-cloud-init', describeEntry(a as TreeEntry));
      continue;
    }
    if (!a) {
      add(path, 'only-kiln', describeEntry(b));
      continue;
    }
    if (a.type !== b.type) {
      add(path, 'type', `${describeEntry(a)} vs ${describeEntry(b)}`);
      continue;
    }
    if (a.type === 'symlink') {
      if (a.target !== b.target) add(path, 'link-target', `${a.target} vs ${b.target}`);
      continue;
    }
    if (a.mode !== b.mode) add(path, 'mode', `${a.mode.toString(8)} vs ${b.mode.toString(8)}`);
    if (a.uid !== b.uid || a.gid !== b.gid) add(path, 'owner', `${a.uid}:${a.gid} vs ${b.uid}:${b.gid}`);
    if (a.type === 'file' && a.sha256 !== b.sha256) {
      const norms = rules.filter((r) => r.normalize && r.path.test(path) && (!r.seeds || r.seeds.test(seed)));
      if (norms.length > 0 && a.text !== undefined && b.text !== undefined) {
        const apply = (t: string, using: AllowedDifference[]) =>
          using.reduce((acc, r) => (r.normalize as (x: string, p: string) => string)(acc, path), t);
        const na = apply(a.text, norms);
        const nb = apply(b.text, norms);
        if (na === nb) {
          diffs.push({
            path,
            kind: 'content',
            detail: 'equal after normalising',
            normalised: true,
            allowedBy: norms.map((r) => r.reason).join('; '),
            excusedBy: neededNormalisers(a.text, b.text, norms, apply),
          });
          continue;
        }
        add(path, 'content', `after normalising (${norms.map((r) => r.reason).join('; ')}):\n${textDiff(na, nb)}`);
        continue;
      }
      add(
        path,
        'content',
        a.text !== undefined && b.text !== undefined ? textDiff(a.text, b.text) : `sha256 ${a.sha256} vs ${b.sha256}`,
      );
    }
  }
  return diffs;
}

/** The report printed when unexplained differences remain. */
export function formatDifferences(seed: string, diffs: Difference[]): string {
  return diffs
    .map((d) => `[${seed}] ${d.kind} ${d.path}${d.allowedBy ? ` (allowed: ${d.allowedBy})` : ''}\n${d.detail}`)
    .join('\n');
}
