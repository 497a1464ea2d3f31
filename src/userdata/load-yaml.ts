// YAML for user data: cloud-init's YAML 1.1 booleans (yes/no/on/off), errors with line and column.
import { parseDocument } from 'yaml';

/** A YAML text that does not parse: `line`/`column` are 1-based inside the text given. */
export class YamlSyntaxError extends Error {
  override readonly name = 'YamlSyntaxError';
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`invalid YAML at line ${line}, column ${column}: ${reason}`);
  }
}

/** Parses TEXT as YAML 1.1 (as PyYAML does); LINE_OFFSET is added to reported lines (for a header line cut off). */
export function loadYaml(text: string, lineOffset = 0): unknown {
  const doc = parseDocument(text, { version: '1.1', prettyErrors: true, uniqueKeys: false, merge: true });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0] ?? { line: 1, col: 1 };
    const reason = (first.message.split('\n')[0] ?? 'syntax error').replace(/ at line \d+, column \d+:?$/, '');
    throw new YamlSyntaxError(pos.line + lineOffset, pos.col, reason);
  }
  return doc.toJS({ maxAliasCount: 1000 });
}
