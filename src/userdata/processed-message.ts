// The processed user data as cloud-init stores it (instances/<iid>/user-data.txt.i): every part, re-wrapped in one MIME
// message.
import { randomInt } from 'node:crypto';
import type { MimeHeader } from './mime';

/** One attached part: its headers in the order Python's email package holds them, and its (still encoded) body. */
export interface ProcessedPart {
  headers: MimeHeader[];
  body: Buffer;
}

/** The part cloud-init attaches for missing or empty data: an untyped, empty text/x-not-multipart part. */
export function emptyProcessedPart(): ProcessedPart {
  return {
    headers: [
      { name: 'MIME-Version', value: '1.0' },
      { name: 'Content-Type', value: 'text/x-not-multipart' },
      { name: 'Content-Disposition', value: 'attachment; filename="part-001"' },
    ],
    body: Buffer.alloc(0),
  };
}

/** A boundary as Python's email package draws it: 15 '=', 19 random digits, '=='. */
export function pythonBoundary(): string {
  let digits = '';
  for (let i = 0; i < 19; i++) digits += String(randomInt(10));
  return `===============${digits}==`;
}

/** Replaces (or appends) a header the way cloud-init's _replace_header does: delete every copy, append at the end. */
export function replaceHeader(headers: MimeHeader[], name: string, value: string): MimeHeader[] {
  const n = name.toLowerCase();
  return [...headers.filter((h) => h.name.toLowerCase() !== n), { name, value }];
}

/**
 * The bytes of str(message) for cloud-init's MIMEMultipart of processed parts: its three headers
 * (Number-Attachments only when something was attached), then each part, no header folding.
 */
export function formatProcessedMessage(parts: ProcessedPart[], boundary = pythonBoundary()): Buffer {
  const head = [`Content-Type: multipart/mixed; boundary="${boundary}"`, 'MIME-Version: 1.0'];
  if (parts.length > 0) head.push(`Number-Attachments: ${parts.length}`);
  const chunks: Buffer[] = [Buffer.from(`${head.join('\n')}\n\n--${boundary}\n`)];
  parts.forEach((p, i) => {
    if (i > 0) chunks.push(Buffer.from(`\n--${boundary}\n`));
    chunks.push(Buffer.from(`${p.headers.map((h) => `${h.name}: ${h.value}\n`).join('')}\n`), p.body);
  });
  chunks.push(Buffer.from(`\n--${boundary}--\n`));
  return Buffer.concat(chunks);
}
