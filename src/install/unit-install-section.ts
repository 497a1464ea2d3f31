// The targets a systemd unit is enabled into, read from its [Install] section as `systemctl enable` reads them.

/** What `systemctl enable` links a unit into: a `.wants` folder for WantedBy=, `.requires` for RequiredBy=. */
export interface EnableLink {
  /** The target (or other unit) that pulls this unit in. */
  target: string;
  folder: 'wants' | 'requires';
}

/**
 * The WantedBy= and RequiredBy= entries of UNIT_TEXT's [Install] section. Values are space-separated lists
 * and may repeat; an empty assignment resets the list, as systemd's parser does. Comments start with # or ;.
 */
export function enableLinks(unitText: string): EnableLink[] {
  let section = '';
  const found: Record<EnableLink['folder'], string[]> = { wants: [], requires: [] };
  for (const raw of unitText.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1] as string;
      continue;
    }
    if (section !== 'Install') continue;
    const m = /^(WantedBy|RequiredBy)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    const folder = m[1] === 'WantedBy' ? 'wants' : 'requires';
    const values = (m[2] as string).split(/\s+/).filter(Boolean);
    found[folder] = values.length === 0 ? [] : [...found[folder], ...values];
  }
  return (['wants', 'requires'] as const).flatMap((folder) =>
    [...new Set(found[folder])].map((target) => ({ target, folder })),
  );
}
