// Finds the directory entry a person meant: exact name, then any case, then ISO9660 `;1`/8.3 forms and
// Windows `~N` short names, so `meta-data`, `META_DATA.;1`, `META_DAT` and `META_DA~1` all reach one file.

export interface NamedEntry {
  /** The name shown to people (Rock Ridge, Joliet or VFAT long name when present). */
  name: string;
  /** Other names the same entry answers to: the raw ISO9660 identifier, the FAT 8.3 short name. */
  altNames: string[];
}

/** `FOO.TXT;1` → `FOO.TXT`, `META_DATA.;1` → `META_DATA`, `DIR.` → `DIR`. */
export function stripIsoVersion(name: string): string {
  let n = name;
  const semi = n.lastIndexOf(';');
  if (semi >= 0 && /^\d*$/.test(n.slice(semi + 1))) n = n.slice(0, semi);
  if (n.endsWith('.') && n.length > 1) n = n.slice(0, -1);
  return n;
}

/** The ISO9660 d-character form of a name: upper case, anything outside A-Z 0-9 _ turned into `_`. */
function dChars(s: string): string {
  return s.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

/** The forms genisoimage and friends give NAME without Joliet/Rock Ridge: relaxed, level 2 (31) and 8.3. */
export function isoManglings(name: string): string[] {
  const dot = name.lastIndexOf('.');
  const base = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot + 1) : '';
  const forms = new Set<string>();
  const join = (b: string, e: string) => (e ? `${b}.${e}` : b);
  forms.add(name.toUpperCase());
  forms.add(join(dChars(base), dChars(ext)));
  forms.add(join(dChars(base).slice(0, 30 - Math.min(ext.length, 29)), dChars(ext)).slice(0, 31));
  forms.add(join(dChars(base).slice(0, 8), dChars(ext).slice(0, 3)));
  // Level 1 tools also fold every dot but the last into `_`, which dChars already did.
  return [...forms];
}

/** The 6-character basis and extension Windows uses to build a `BASIS~N.EXT` short name. */
function shortBasis(name: string): { base: string; ext: string } {
  const cleaned = name.toUpperCase().replace(/^\.+/, '').replace(/ /g, '');
  const dot = cleaned.lastIndexOf('.');
  const base = (dot > 0 ? cleaned.slice(0, dot) : cleaned)
    .replace(/\./g, '')
    .replace(/[^A-Z0-9!#$%&'()@^_`{}~-]/g, '_');
  const ext = (dot > 0 ? cleaned.slice(dot + 1) : '').replace(/[^A-Z0-9!#$%&'()@^_`{}~-]/g, '_');
  return { base, ext: ext.slice(0, 3) };
}

/**
 * Returns the entry NAME refers to among ENTRIES (in directory order), or undefined. Tries, in order:
 * the exact name, the same name in any case, the entry's alternate names in any case, ISO9660 versions
 * and manglings, and finally a Windows `~N` short name (the N-th entry whose long name shares the basis).
 */
export function resolveName<E extends NamedEntry>(entries: readonly E[], name: string): E | undefined {
  const exact = entries.find((e) => e.name === name);
  if (exact) return exact;
  const upper = name.toUpperCase();
  const anyCase = entries.find(
    (e) => e.name.toUpperCase() === upper || e.altNames.some((a) => a.toUpperCase() === upper),
  );
  if (anyCase) return anyCase;
  const wanted = stripIsoVersion(upper);
  const plain = entries.find(
    (e) =>
      stripIsoVersion(e.name.toUpperCase()) === wanted ||
      e.altNames.some((a) => stripIsoVersion(a.toUpperCase()) === wanted),
  );
  if (plain) return plain;
  const forms = isoManglings(wanted);
  const mangled = entries.find(
    (e) =>
      [e.name, ...e.altNames].some((n) => forms.includes(stripIsoVersion(n.toUpperCase()))) ||
      isoManglings(e.name.toUpperCase()).includes(wanted),
  );
  if (mangled) return mangled;
  const tilde = /^(.{1,7})~(\d{1,6})(?:\.(.{0,3}))?$/.exec(wanted);
  if (tilde) {
    const prefix = tilde[1] as string;
    const n = Number(tilde[2]);
    const ext = tilde[3] ?? '';
    let seen = 0;
    for (const e of entries) {
      const basis = shortBasis(e.name);
      if (basis.base.startsWith(prefix) && basis.ext === ext && ++seen === n) return e;
    }
  }
  return undefined;
}
