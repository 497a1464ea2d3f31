// A small, strict XML reader for the documents clouds hand out (ovf-env.xml, Azure's goal state): elements, attributes,
// namespaces, text; no DTDs.
import { KilnError } from './errors';

/**
 * A document that is not well-formed XML, or uses what this reader refuses (a DOCTYPE); names the document and where.
 */
export class XmlError extends KilnError {
  override readonly name = 'XmlError';
  constructor(what: string, reason: string, line?: number) {
    super(`${what}: not usable XML${line === undefined ? '' : ` at line ${line}`}: ${reason}`);
  }
}

export interface XmlElement {
  /** The name as written, with its prefix ('wa:HostName'). */
  qname: string;
  /** The name without its prefix ('HostName'). */
  local: string;
  /** The namespace URI the prefix (or the default namespace) stands for; '' when none. */
  ns: string;
  /** Attribute values by name as written ('oe:key'). */
  attributes: Record<string, string>;
  /** The namespace URI of each attribute's prefix, by name as written; '' for unprefixed ones (XML Namespaces 1.0). */
  attributeNs: Record<string, string>;
  children: XmlElement[];
  /**
   * The element's own character data (text and CDATA directly inside it, children's text excluded), entities decoded.
   */
  text: string;
}

const MAX_DEPTH = 64;
const MAX_ELEMENTS = 100_000;
const NAME = /^[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/;
const XML_NS = 'http://www.w3.org/XML/1998/namespace';

/**
 * Decodes the five predefined entities and character references; any other entity is an error (no DTD, so none is
 * defined).
 */
function decodeEntities(s: string, fail: (reason: string) => never): string {
  return s.replace(/&(?:([^;&\s<]{1,10});)?/g, (whole, ref: string | undefined) => {
    if (ref === undefined) return fail("a bare '&' (write &amp;)");
    if (ref === 'lt') return '<';
    if (ref === 'gt') return '>';
    if (ref === 'amp') return '&';
    if (ref === 'quot') return '"';
    if (ref === 'apos') return "'";
    const code = /^#x[0-9a-fA-F]+$/.test(ref)
      ? Number.parseInt(ref.slice(2), 16)
      : /^#\d+$/.test(ref)
        ? Number.parseInt(ref.slice(1), 10)
        : undefined;
    if (code === undefined || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) || code === 0)
      return fail(`unknown entity ${whole}`);
    return String.fromCodePoint(code);
  });
}

/** Parses TEXT (a whole document) and returns its root element. WHAT names the document in errors. */
export function parseXml(text: string, what: string): XmlElement {
  let s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let i = 0;
  const fail = (reason: string): never => {
    throw new XmlError(what, reason, s.slice(0, i).split('\n').length);
  };
  const skipMisc = () => {
    for (;;) {
      while (i < s.length && /\s/.test(s[i] as string)) i++;
      if (s.startsWith('<?', i)) {
        const end = s.indexOf('?>', i + 2);
        if (end < 0) fail('a processing instruction is not closed');
        i = end + 2;
      } else if (s.startsWith('<!--', i)) {
        const end = s.indexOf('-->', i + 4);
        if (end < 0) fail('a comment is not closed');
        i = end + 3;
      } else if (s.startsWith('<!DOCTYPE', i) || s.startsWith('<!ENTITY', i)) {
        fail('document type declarations are refused (they can define entities)');
      } else return;
    }
  };
  let count = 0;
  const parseElement = (scope: Map<string, string>, depth: number): XmlElement => {
    if (depth > MAX_DEPTH) fail(`elements nested deeper than ${MAX_DEPTH}`);
    if (++count > MAX_ELEMENTS) fail(`more than ${MAX_ELEMENTS} elements`);
    if (s[i] !== '<') fail("expected '<'");
    i++;
    const m = NAME.exec(s.slice(i, i + 256));
    if (!m) fail('expected an element name');
    const qname = (m as RegExpExecArray)[0];
    i += qname.length;
    const rawAttrs: Array<[string, string]> = [];
    let selfClosing = false;
    for (;;) {
      const ws = i;
      while (i < s.length && /\s/.test(s[i] as string)) i++;
      if (s.startsWith('/>', i)) {
        i += 2;
        selfClosing = true;
        break;
      }
      if (s[i] === '>') {
        i++;
        break;
      }
      if (i >= s.length) fail(`element <${qname}> is not closed`);
      if (i === ws) fail(`expected whitespace before an attribute in <${qname}>`);
      const a = NAME.exec(s.slice(i, i + 256));
      if (!a) fail(`expected an attribute name in <${qname}>`);
      const name = (a as RegExpExecArray)[0];
      i += name.length;
      while (/\s/.test(s[i] ?? '')) i++;
      if (s[i] !== '=') fail(`expected '=' after attribute ${name}`);
      i++;
      while (/\s/.test(s[i] ?? '')) i++;
      const quote = s[i];
      if (quote !== '"' && quote !== "'") fail(`attribute ${name} needs a quoted value`);
      const end = s.indexOf(quote as string, i + 1);
      if (end < 0) fail(`attribute ${name} is not closed`);
      const raw = s.slice(i + 1, end);
      if (raw.includes('<')) fail(`attribute ${name} contains '<'`);
      if (rawAttrs.some(([n]) => n === name)) fail(`attribute ${name} appears twice in <${qname}>`);
      // Attribute-value normalisation (XML 1.0 §3.3.3): literal tabs and line breaks become spaces; references stay.
      rawAttrs.push([name, decodeEntities(raw.replace(/[\t\n\r]/g, ' '), fail)]);
      i = end + 1;
    }
    const own = new Map(scope);
    for (const [n, v] of rawAttrs) {
      if (n === 'xmlns') own.set('', v);
      else if (n.startsWith('xmlns:')) own.set(n.slice(6), v);
    }
    const resolve = (name: string, isAttr: boolean): string => {
      const colon = name.indexOf(':');
      if (colon < 0) return isAttr ? '' : (own.get('') ?? '');
      const prefix = name.slice(0, colon);
      if (prefix === 'xml') return XML_NS;
      const uri = own.get(prefix);
      if (uri === undefined) fail(`the prefix '${prefix}' of ${name} is not declared`);
      return uri as string;
    };
    const colon = qname.indexOf(':');
    const el: XmlElement = {
      qname,
      local: colon < 0 ? qname : qname.slice(colon + 1),
      ns: resolve(qname, false),
      attributes: {},
      attributeNs: {},
      children: [],
      text: '',
    };
    for (const [n, v] of rawAttrs) {
      if (n !== 'xmlns' && !n.startsWith('xmlns:')) el.attributeNs[n] = resolve(n, true);
      el.attributes[n] = v;
    }
    if (selfClosing) return el;
    for (;;) {
      if (i >= s.length) fail(`element <${qname}> is not closed`);
      if (s.startsWith('</', i)) {
        const close = `</${qname}`;
        if (!s.startsWith(close, i)) fail(`expected ${close}> to close <${qname}>`);
        i += close.length;
        while (/\s/.test(s[i] ?? '')) i++;
        if (s[i] !== '>') fail(`expected '>' to end ${close}`);
        i++;
        return el;
      }
      if (s.startsWith('<![CDATA[', i)) {
        const end = s.indexOf(']]>', i + 9);
        if (end < 0) fail('a CDATA section is not closed');
        el.text += s.slice(i + 9, end);
        i = end + 3;
      } else if (s.startsWith('<!--', i)) {
        const end = s.indexOf('-->', i + 4);
        if (end < 0) fail('a comment is not closed');
        i = end + 3;
      } else if (s.startsWith('<?', i)) {
        const end = s.indexOf('?>', i + 2);
        if (end < 0) fail('a processing instruction is not closed');
        i = end + 2;
      } else if (s.startsWith('<!', i)) {
        fail('a declaration inside an element');
      } else if (s[i] === '<') {
        el.children.push(parseElement(own, depth + 1));
      } else {
        const next = s.indexOf('<', i);
        const end = next < 0 ? s.length : next;
        const raw = s.slice(i, end);
        if (raw.includes(']]>')) fail("']]>' in text");
        el.text += decodeEntities(raw, fail);
        i = end;
      }
    }
  };
  s = s.replace(/\r\n?/g, '\n');
  skipMisc();
  if (i >= s.length) fail('the document is empty');
  const root = parseElement(new Map(), 0);
  skipMisc();
  if (i < s.length) fail('content after the root element');
  return root;
}

/** The children of EL named LOCAL in namespace NS. */
export function childrenNamed(el: XmlElement, ns: string, local: string): XmlElement[] {
  return el.children.filter((c) => c.local === local && c.ns === ns);
}

/** Escapes TEXT for element content ('&', '<', '>', as Python's xml.sax.saxutils.escape does). */
export function escapeXmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
