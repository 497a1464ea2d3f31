// A small MIME reader and writer (RFC 2045/2046) for user data: headers, nested multipart, boundaries.

export interface MimeHeader {
  name: string;
  value: string;
}

export interface MimeEntity {
  headers: MimeHeader[];
  /** Lower-case media type, `text/plain` when absent (RFC 2045 default). */
  contentType: string;
  /** Content-Type parameters, lower-case names. */
  params: Record<string, string>;
  /** The body as raw bytes (transfer encoding NOT yet undone); empty for multipart containers. */
  body: Buffer;
  /** Children of a multipart entity, in order. */
  parts: MimeEntity[];
  /** Problems found while splitting (missing closing boundary …); the parts found are still returned. */
  defects: string[];
}

export function header(entity: { headers: MimeHeader[] }, name: string): string | undefined {
  const n = name.toLowerCase();
  return entity.headers.find((h) => h.name.toLowerCase() === n)?.value;
}

/** Parses `type/sub; a=b; c="d e"` into the media type and its parameters. */
export function parseContentType(value: string | undefined): { type: string; params: Record<string, string> } {
  if (!value) return { type: 'text/plain', params: {} };
  const [first, ...rest] = splitParams(value);
  const type = (first ?? '').trim().toLowerCase() || 'text/plain';
  return { type, params: parseParams(rest) };
}

function splitParams(value: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (c === '"' && value[i - 1] !== '\\') quoted = !quoted;
    if (c === ';' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function parseParams(pieces: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const p of pieces) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const k = p.slice(0, eq).trim().toLowerCase();
    let v = p.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1).replace(/\\(.)/g, '$1');
    if (k) params[k] = v;
  }
  return params;
}

/** `filename` from Content-Disposition (or `name` from Content-Type), as the email module finds it. */
export function entityFilename(entity: MimeEntity): string | undefined {
  const disp = header(entity, 'content-disposition');
  if (disp) {
    const params = parseParams(splitParams(disp).slice(1));
    if (params.filename) return params.filename;
  }
  return entity.params.name;
}

/** cloud-init's test for a MIME message: `mime-version:` anywhere in the first 4096 bytes. */
export function looksLikeMime(head: string): boolean {
  return head.slice(0, 4096).toLowerCase().includes('mime-version:');
}

/** A message that opens with a Content-Type header but that cloud-init will not read as MIME (no MIME-Version). */
export function looksLikeMimeWithoutVersion(head: string): boolean {
  return /^content-type:\s*multipart\//i.test(head) && !looksLikeMime(head);
}

const MAX_DEPTH = 20;

/** Parses a MIME message from its bytes; never throws: problems are recorded as defects. */
export function parseMime(data: Uint8Array, depth = 0): MimeEntity {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
  let headEnd = -1;
  let bodyStart = text.length;
  const m = /\r?\n\r?\n/.exec(text);
  if (m) {
    headEnd = m.index;
    bodyStart = m.index + m[0].length;
  } else {
    headEnd = text.length;
  }
  const headers = parseHeaderBlock(text.slice(0, headEnd));
  const ct = parseContentType(headers.find((h) => h.name.toLowerCase() === 'content-type')?.value);
  const entity: MimeEntity = {
    headers,
    contentType: ct.type,
    params: ct.params,
    body: Buffer.alloc(0),
    parts: [],
    defects: [],
  };
  const bodyText = text.slice(bodyStart);
  if (!ct.type.startsWith('multipart/')) {
    entity.body = Buffer.from(bodyText, 'latin1');
    return entity;
  }
  const boundary = ct.params.boundary;
  if (!boundary) {
    entity.defects.push(`${ct.type} has no boundary parameter`);
    entity.body = Buffer.from(bodyText, 'latin1');
    return entity;
  }
  if (depth >= MAX_DEPTH) {
    entity.defects.push(`multipart nesting deeper than ${MAX_DEPTH} levels`);
    return entity;
  }
  const delim = `--${boundary}`;
  const lines = splitLinesKeepEnds(bodyText);
  let current: string[] | null = null;
  let closed = false;
  const bodies: string[] = [];
  for (const line of lines) {
    const bare = line.replace(/\r?\n$/, '').replace(/[ \t]+$/, '');
    if (bare === delim || bare === `${delim}--`) {
      if (current) bodies.push(joinPart(current));
      if (bare === `${delim}--`) {
        closed = true;
        current = null;
        break;
      }
      current = [];
      continue;
    }
    if (current) current.push(line);
  }
  if (current) bodies.push(joinPart(current));
  if (bodies.length === 0) {
    entity.defects.push(`multipart boundary '${boundary}' not found in the body`);
    return entity;
  }
  if (!closed) entity.defects.push(`closing boundary '--${boundary}--' missing (message truncated?)`);
  for (const b of bodies) entity.parts.push(parseMime(Buffer.from(b, 'latin1'), depth + 1));
  return entity;
}

function splitLinesKeepEnds(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (;;) {
    const i = text.indexOf('\n', start);
    if (i < 0) {
      if (start < text.length) out.push(text.slice(start));
      return out;
    }
    out.push(text.slice(start, i + 1));
    start = i + 1;
  }
}

/** The CRLF before a boundary belongs to the boundary (RFC 2046), so the last line ending is dropped. */
function joinPart(lines: string[]): string {
  return lines.join('').replace(/\r?\n$/, '');
}

function parseHeaderBlock(block: string): MimeHeader[] {
  const out: MimeHeader[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && out.length > 0) {
      const last = out[out.length - 1] as MimeHeader;
      last.value += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    out.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  return out;
}

/** One part for `buildMultipart`. */
export interface MimePartInput {
  contentType: string;
  filename?: string;
  content: Uint8Array;
  /** Extra headers (Merge-Type, Launch-Index …). */
  headers?: MimeHeader[];
}

/**
 * Builds a multipart/mixed message as cloud-init's make-mime does: text parts inline (7bit or base64 when
 * not plain ASCII), a random boundary that does not occur in any part.
 */
export function buildMultipart(parts: MimePartInput[], boundary: string): string {
  for (const p of parts) {
    if (Buffer.from(p.content).toString('latin1').includes(boundary))
      throw new Error(`boundary '${boundary}' occurs inside ${p.filename ?? 'a part'}`);
  }
  const out: string[] = [`Content-Type: multipart/mixed; boundary="${boundary}"`, 'MIME-Version: 1.0', '', ''];
  for (const p of parts) {
    const buf = Buffer.from(p.content);
    const ascii = buf.every((b) => b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127));
    out.push(`--${boundary}`);
    out.push(`Content-Type: ${p.contentType}; charset="${ascii ? 'us-ascii' : 'utf-8'}"`);
    out.push('MIME-Version: 1.0');
    out.push(`Content-Transfer-Encoding: ${ascii ? '7bit' : 'base64'}`);
    if (p.filename) out.push(`Content-Disposition: attachment; filename="${p.filename.replace(/"/g, '\\"')}"`);
    for (const h of p.headers ?? []) out.push(`${h.name}: ${h.value}`);
    out.push('');
    out.push(ascii ? buf.toString('latin1') : (buf.toString('base64').match(/.{1,76}/g) ?? []).join('\n'));
  }
  out.push(`--${boundary}--`, '');
  return out.join('\n');
}
