// The subset of Python's ConfigObj that cloud-init's mcollective module reads and writes (server.cfg): keys, one level
// of [sections], comments kept.
import { ModuleError } from '../module';

export type ConfigObjValue = string | string[];

/** One section: its scalars and subsections in order, and the comment lines above each and inline after it. */
export interface ConfigObjSection {
  scalars: Map<string, ConfigObjValue>;
  sections: Map<string, ConfigObjSection>;
  comments: Map<string, string[]>;
  inline: Map<string, string>;
}

export interface ConfigObjFile {
  root: ConfigObjSection;
  initialComment: string[];
  finalComment: string[];
  indentType: string;
  newline: string;
}

export function emptySection(): ConfigObjSection {
  return { scalars: new Map(), sections: new Map(), comments: new Map(), inline: new Map() };
}

export function emptyConfigObj(): ConfigObjFile {
  return { root: emptySection(), initialComment: [], finalComment: [], indentType: '    ', newline: '\n' };
}

/** A value as ConfigObj reads it: a quoted or plain string, or a comma-separated list; and the inline comment. */
function parseValue(module: string, raw: string, lineNo: number): { value: ConfigObjValue; comment: string } {
  const items: string[] = [];
  let i = 0;
  let isList = false;
  const s = raw;
  const skipWs = () => {
    while (i < s.length && /\s/.test(s[i] as string)) i++;
  };
  for (;;) {
    skipWs();
    if (i >= s.length || s[i] === '#') break;
    const q = s[i];
    if (q === '"' || q === "'") {
      if (s.startsWith(q.repeat(3), i))
        throw new ModuleError(module, `triple-quoted values are not supported (line ${lineNo})`);
      const end = s.indexOf(q, i + 1);
      if (end < 0) throw new ModuleError(module, `Parse error in value at line ${lineNo}.`);
      items.push(s.slice(i + 1, end));
      i = end + 1;
    } else {
      let j = i;
      while (j < s.length && s[j] !== ',' && s[j] !== '#') j++;
      items.push(s.slice(i, j).trim());
      i = j;
    }
    skipWs();
    if (s[i] === ',') {
      isList = true;
      i++;
      continue;
    }
    if (i < s.length && s[i] !== '#') throw new ModuleError(module, `Parse error in value at line ${lineNo}.`);
    break;
  }
  const comment = i < s.length ? s.slice(i).trim() : '';
  if (isList)
    return {
      value: items.filter((x, n) => !(n === items.length - 1 && x === '' && raw.trim().endsWith(','))),
      comment,
    };
  return { value: items[0] ?? '', comment };
}

/** Reads TEXT as ConfigObj(BytesIO(text)) does. */
export function parseConfigObj(module: string, text: string): ConfigObjFile {
  const file = emptyConfigObj();
  file.newline = /\r\n/.test(text) ? '\r\n' : '\n';
  let indentType: string | undefined;
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  let section = file.root;
  let comments: string[] = [];
  let doneStart = false;
  let resetComment = false;
  const noteStart = () => {
    if (!doneStart) {
      file.initialComment = comments;
      comments = [];
      doneStart = true;
    }
    resetComment = true;
  };
  lines.forEach((line, n) => {
    const lineNo = n + 1;
    const stripped = line.trim();
    if (!stripped || stripped.startsWith('#')) {
      resetComment = false;
      comments.push(line);
      return;
    }
    noteStart();
    const indent = /^\s*/.exec(line)?.[0] ?? '';
    if (indent && indentType === undefined) indentType = indent;
    const marker = /^\s*(\[+)\s*([^\]]*?)\s*(\]+)\s*(#.*)?$/.exec(line);
    if (marker) {
      const depth = (marker[1] as string).length;
      if (depth !== 1 || (marker[3] as string).length !== 1)
        throw new ModuleError(module, `nested sections are not supported (line ${lineNo})`);
      const name = marker[2] as string;
      if (file.root.sections.has(name) || file.root.scalars.has(name))
        throw new ModuleError(module, `Duplicate section name at line ${lineNo}.`);
      section = emptySection();
      file.root.sections.set(name, section);
      file.root.comments.set(name, comments);
      file.root.inline.set(name, marker[4] ?? '');
      comments = [];
      return;
    }
    const kv = /^\s*([^=]+?)\s*=\s*(.*)$/.exec(line);
    if (!kv)
      throw new ModuleError(
        module,
        `Invalid line ('${line}') (matched as neither section nor keyword) at line ${lineNo}.`,
      );
    let key = kv[1] as string;
    if (/^(["']).*\1$/.test(key)) key = key.slice(1, -1);
    if (section.scalars.has(key) || section.sections.has(key))
      throw new ModuleError(module, `Duplicate keyword name at line ${lineNo}.`);
    const { value, comment } = parseValue(module, kv[2] as string, lineNo);
    section.scalars.set(key, value);
    section.comments.set(key, comments);
    section.inline.set(key, comment);
    comments = [];
  });
  file.indentType = indentType ?? '';
  if (file.root.scalars.size === 0 && file.root.sections.size === 0 && file.initialComment.length === 0)
    file.initialComment = comments;
  else if (!resetComment) file.finalComment = comments;
  return file;
}

/** ConfigObj's _quote for one string. */
function quote(module: string, v: string): string {
  if (v === '') return '""';
  if (v.includes('\n'))
    throw new ModuleError(module, `a value with a line break cannot be written: ${JSON.stringify(v)}`);
  const ws = ' \r\n\v\t\'"';
  const plain =
    !ws.includes(v[0] as string) && !ws.includes(v[v.length - 1] as string) && !v.includes(',') && !v.includes('#');
  if (plain) return v;
  if (v.includes("'") && v.includes('"'))
    throw new ModuleError(module, `Value ${JSON.stringify(v)} cannot be safely quoted.`);
  return v.includes('"') ? `'${v}'` : `"${v}"`;
}

function quoteValue(module: string, v: ConfigObjValue): string {
  if (!Array.isArray(v)) return quote(module, v);
  if (v.length === 0) return ',';
  if (v.length === 1) return `${quote(module, v[0] as string)},`;
  return v.map((x) => quote(module, x)).join(', ');
}

function commentLine(line: string): string {
  const l = line.replace(/^\s+/, '');
  return l && !l.startsWith('#') ? `# ${l}` : l;
}

/** ConfigObj.write: the text of FILE (initial comment, scalars, then sections, final comment). */
export function writeConfigObj(module: string, file: ConfigObjFile): string {
  const out: string[] = file.initialComment.map((l) => (l.trim() && !l.trim().startsWith('#') ? `# ${l}` : l));
  const inline = (c: string | undefined) => (c ? `${file.indentType}${c.startsWith('#') ? '' : ' # '}${c}` : '');
  const writeSection = (sec: ConfigObjSection, depth: number) => {
    const pad = file.indentType.repeat(depth);
    for (const [k, v] of sec.scalars) {
      for (const c of sec.comments.get(k) ?? []) out.push(pad + commentLine(c));
      out.push(`${pad}${k} = ${quoteValue(module, v)}${inline(sec.inline.get(k))}`);
    }
    for (const [name, sub] of sec.sections) {
      for (const c of sec.comments.get(name) ?? []) out.push(pad + commentLine(c));
      out.push(`${pad}${'['.repeat(depth + 1)}${name}${']'.repeat(depth + 1)}${inline(sec.inline.get(name))}`);
      writeSection(sub, depth + 1);
    }
  };
  writeSection(file.root, 0);
  for (const l of file.finalComment) out.push(l.trim() && !l.trim().startsWith('#') ? `# ${l}` : l);
  const text = out.join(file.newline);
  return text.endsWith(file.newline) ? text : text + file.newline;
}
