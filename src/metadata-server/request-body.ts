// A request's body as text, bounded: what the phone-home endpoint and the clouds' mocks read.
import type { IncomingMessage } from 'node:http';

/**
 * REQ's body, at most LIMIT bytes: past it, the reading stops and what came is kept; with TOO_LONG the request is
 * destroyed and the read fails with that message instead.
 */
export async function readRequestBody(req: IncomingMessage, limit: number, tooLong?: string): Promise<string> {
  if (tooLong !== undefined) {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > limit) req.destroy(new Error(tooLong));
        else chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
