// A small, strict XML reader for the short documents clouds hand over (ovf-env.xml): elements, attributes, namespaces, text.
//
// kiln has no XML dependency, and these documents need none of XML's heavier parts: a DOCTYPE (and with it any
// entity definition, the door to entity-expansion attacks) is refused, as are undeclared entities and namespace
// prefixes. What is accepted is read as expat/minidom (cloud-init's reader) reads it.
import { SourceError } from '../source-error';

export interface XmlAttribute {
  /** As written: `oe:key`. */
  name: string;
  localName: string;
  /** The namespace URI of its prefix; unprefixed attributes have none (XML Namespaces 1.0). */
  namespace?: string;
  value: string;
}

export interface XmlElement {
  name: string;
  localName: string;
  /** The namespace URI of its prefix, or the default namespace in scope. */
  namespace?: string;
  attributes: XmlAttribute[];
  children: XmlElement[];
  /** The element's own character data (CDATA included), children's text left out. */
  text: string;
}

const MAX_DEPTH = 256;
const NAME = /^[A-Za-z_\u00C0-\uFFFF][-A-Za-z0-9._:\u00B7\u00C0-\uFFFF]*/;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const XML_NS = 'http://www.w3.org/XML/1998/namespace';

/** Reads XML text; SOURCE (e.g. `/dev/sr0 ovf-env.xml`) names it in errors. Returns the document element. */
export function parseXmlDocument(text: string, source: string): XmlElement {
  let pos = 0;
  const src = text.replace(/^\uFEFF/, '');
  const fail = (why: string): never => {
    const line = src.slice(0, pos).split('\n').length;
    throw new SourceError('OVF', `${source}: not well-formed XML at line ${line}: ${why}`);
  };
  const decode = (raw: string): string =>
    raw.replace(/&([^;&\s]*);?/g, (m, ref: string) => {
      if (!m.endsWith(';')) return fail(`'&' must start an entity reference such as &amp;`);
      if (ref.startsWith('#')) {
        const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
        if (!/^#(x[0-9A-Fa-f]+|[0-9]+)$/.test(ref) || !Number.isFinite(code) || code === 0 || code > 0x10ffff) return fail(`bad character reference &${ref};`);
        return String.fromCodePoint(code);
      }
      const e = ENTITIES[ref];
      return e ?? fail(`undeclared entity &${ref};`);
    });
  /** Skips comments, processing instructions and whitespace; refuses a DOCTYPE. */
  const skipMisc = () => {
    for (;;) {
      while (pos < src.length && /\s/.test(src[pos] as string)) pos++;
      if (src.startsWith('<!--', pos)) {
        const end = src.indexOf('-->', pos + 4);
        if (end < 0) fail('unterminated comment');
        pos = end + 3;
      } else if (src.startsWith('<?', pos)) {
        const end = src.indexOf('?>', pos + 2);
        if (end < 0) fail('unterminated processing instruction');
        pos = end + 2;
      } else if (src.startsWith('<!DOCTYPE', pos)) {
        fail('a DOCTYPE is not accepted (kiln reads no DTDs or entity definitions)');
      } else return;
    }
  };
  const name = (): string => {
    const m = NAME.exec(src.slice(pos, pos + 1000));
    if (!m) return fail(`expected a name, found ${JSON.stringify(src.slice(pos, pos + 10))}`);
    pos += m[0].length;
    return m[0];
  };
  const split = (qname: string): [string | undefined, string] => {
    const i = qname.indexOf(':');
    return i < 0 ? [undefined, qname] : [qname.slice(0, i), qname.slice(i + 1)];
  };

  const element = (scope: Map<string, string>, depth: number): XmlElement => {
    if (depth > MAX_DEPTH) fail(`elements nested deeper than ${MAX_DEPTH}`);
    pos++; // '<'
    const qname = name();
    const raw: Array<{ name: string; value: string }> = [];
    for (;;) {
      const ws = /^\s*/.exec(src.slice(pos))?.[0].length ?? 0;
      pos += ws;
      if (src.startsWith('/>', pos) || src[pos] === '>') break;
      if (ws === 0) fail('attributes must be separated by whitespace');
      const an = name();
      pos += /^\s*/.exec(src.slice(pos))?.[0].length ?? 0;
      if (src[pos] !== '=') fail(`attribute ${an} has no '='`);
      pos++;
      pos += /^\s*/.exec(src.slice(pos))?.[0].length ?? 0;
      const quote = src[pos];
      if (quote !== '"' && quote !== "'") fail(`the value of attribute ${an} must be quoted`);
      const end = src.indexOf(quote as string, pos + 1);
      if (end < 0) fail(`unterminated value of attribute ${an}`);
      const value = src.slice(pos + 1, end);
      if (value.includes('<')) fail(`'<' in the value of attribute ${an}`);
      if (raw.some((a) => a.name === an)) fail(`attribute ${an} appears twice on <${qname}>`);
      // Attribute-value normalisation: each literal tab, newline or carriage return becomes a space.
      raw.push({ name: an, value: decode(value.replace(/\r\n|[\t\n\r]/g, ' ')) });
      pos = end + 1;
    }
    const local = new Map(scope);
    for (const a of raw) {
      if (a.name === 'xmlns') local.set('', a.value);
      else if (a.name.startsWith('xmlns:')) {
        if (a.value === '') fail(`namespace prefix ${a.name.slice(6)} bound to an empty URI`);
        local.set(a.name.slice(6), a.value);
      }
    }
    const resolve = (prefix: string | undefined, what: string): string | undefined => {
      if (prefix === undefined) return undefined;
      if (prefix === 'xml') return XML_NS;
      const ns = local.get(prefix);
      return ns ?? fail(`namespace prefix '${prefix}' of ${what} is not declared`);
    };
    const [prefix, localName] = split(qname);
    const ns = prefix === undefined ? local.get('') || undefined : resolve(prefix, `<${qname}>`);
    const attributes: XmlAttribute[] = raw
      .filter((a) => a.name !== 'xmlns' && !a.name.startsWith('xmlns:'))
      .map((a) => {
        const [p, l] = split(a.name);
        const ans = resolve(p, `attribute ${a.name}`);
        return { name: a.name, localName: l, ...(ans ? { namespace: ans } : {}), value: a.value };
      });
    const el: XmlElement = { name: qname, localName, ...(ns ? { namespace: ns } : {}), attributes, children: [], text: '' };
    if (src.startsWith('/>', pos)) {
      pos += 2;
      return el;
    }
    pos++; // '>'
    for (;;) {
      if (pos >= src.length) fail(`<${qname}> is not closed`);
      if (src.startsWith('</', pos)) {
        pos += 2;
        const closing = name();
        if (closing !== qname) fail(`</${closing}> closes <${qname}>`);
        pos += /^\s*/.exec(src.slice(pos))?.[0].length ?? 0;
        if (src[pos] !== '>') fail(`</${closing} is not ended by '>'`);
        pos++;
        return el;
      }
      if (src.startsWith('<!--', pos) || src.startsWith('<?', pos)) {
        const close = src.startsWith('<!--', pos) ? '-->' : '?>';
        const end = src.indexOf(close, pos);
        if (end < 0) fail('unterminated comment or processing instruction');
        pos = end + close.length;
      } else if (src.startsWith('<![CDATA[', pos)) {
        const end = src.indexOf(']]>', pos);
        if (end < 0) fail('unterminated CDATA section');
        el.text += src.slice(pos + 9, end);
        pos = end + 3;
      } else if (src.startsWith('<!', pos)) {
        fail('a declaration is not accepted inside an element');
      } else if (src[pos] === '<') {
        el.children.push(element(local, depth + 1));
      } else {
        const next = src.indexOf('<', pos);
        const chunk = src.slice(pos, next < 0 ? src.length : next);
        el.text += decode(chunk.replace(/\r\n?/g, '\n'));
        pos += chunk.length;
      }
    }
  };

  skipMisc();
  if (src[pos] !== '<') fail('no document element');
  const root = element(new Map(), 0);
  skipMisc();
  if (pos < src.length) fail('content after the document element');
  return root;
}
