// YAML for user data: cloud-init's YAML 1.1 booleans (yes/no/on/off), errors with line and column.
import { parseDocument, Scalar, type Tags } from 'yaml';

// PyYAML's booleans: yes/no/on/off/true/false in three casings, but not y/n (the yaml package's 1.1 schema has those).
const PY_TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const PY_FALSE = /^(?:no|No|NO|false|False|FALSE|off|Off|OFF)$/;
const pyBool = (value: boolean, test: RegExp) => ({
  identify: (v: unknown) => v === value,
  default: true,
  tag: 'tag:yaml.org,2002:bool',
  test,
  resolve: () => new Scalar(value),
});

function pyYamlTags(tags: Tags): Tags {
  const rest = tags.filter((t) => !(typeof t === 'object' && 'tag' in t && t.tag === 'tag:yaml.org,2002:bool'));
  return [pyBool(true, PY_TRUE), pyBool(false, PY_FALSE), ...rest];
}

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
  const doc = parseDocument(text, { version: '1.1', prettyErrors: true, uniqueKeys: false, merge: true, customTags: pyYamlTags });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0] ?? { line: 1, col: 1 };
    const reason = (first.message.split('\n')[0] ?? 'syntax error').replace(/ at line \d+, column \d+:?$/, '');
    throw new YamlSyntaxError(pos.line + lineOffset, pos.col, reason);
  }
  return doc.toJS({ maxAliasCount: 1000 });
}
