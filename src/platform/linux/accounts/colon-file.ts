// A colon-separated account file (/etc/passwd, shadow, group, gshadow, subuid, subgid) kept line for line, so
// that what kiln does not change is written back byte for byte, as shadow-utils' commonio does.

/** An entry line: not blank, not a comment. */
function isEntry(line: string): boolean {
  return line !== '' && !line.startsWith('#');
}

export class ColonFile {
  private readonly lines: string[];

  /** TEXT as read ('' for a missing file); a final newline is not a line of its own. */
  constructor(text: string) {
    this.lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  }

  /** The fields of every entry (comments and blank lines skipped). */
  entries(): string[][] {
    return this.lines.filter(isEntry).map((l) => l.split(':'));
  }

  find(name: string): string[] | undefined {
    return this.entries().find((f) => f[0] === name);
  }

  /** True when a line is a NIS compat entry (+name / -name), whose placement rules kiln leaves to the tools. */
  hasCompatEntries(): boolean {
    return this.lines.some((l) => l.startsWith('+') || l.startsWith('-'));
  }

  /** Replaces the entry named FIELDS[0]; false when there is none. */
  replace(fields: string[]): boolean {
    const at = this.lines.findIndex((l) => isEntry(l) && l.split(':')[0] === fields[0]);
    if (at < 0) return false;
    this.lines[at] = fields.join(':');
    return true;
  }

  /** Sorts the entries by CMP (shadow sorts subuid/subgid by range before allocating); other lines go last. */
  sortEntries(cmp: (a: string[], b: string[]) => number): void {
    const entries = this.lines.filter(isEntry).map((l) => l.split(':'));
    const rest = this.lines.filter((l) => !isEntry(l));
    this.lines.splice(0, this.lines.length, ...entries.sort(cmp).map((f) => f.join(':')), ...rest);
  }

  /**
   * Adds MEMBER to the member list (the fourth field, in group and gshadow) of the entry NAME, at its end;
   * false when there is no such entry or MEMBER is on the list already.
   */
  addMember(name: string, member: string): boolean {
    const entry = this.find(name);
    const members = entry?.[3] ? entry[3].split(',') : [];
    if (!entry || members.includes(member)) return false;
    return this.replace([name, entry[1] ?? '', entry[2] ?? '', [...members, member].join(',')]);
  }

  append(fields: string[]): void {
    this.lines.push(fields.join(':'));
  }

  text(): string {
    return this.lines.length === 0 ? '' : `${this.lines.join('\n')}\n`;
  }
}
