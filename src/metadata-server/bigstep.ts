// The Bigstep metadata URL's rules for the mock: one JSON document ({metadata, vendordata_raw, userdata_raw}) assembled from the folder.
import { promises as fsp } from 'node:fs';
import { posix } from 'node:path';
import type { KindAnswer } from './hetzner';

async function readOptional(path: string): Promise<string> {
  return fsp.readFile(path, 'utf8').catch(() => '');
}

/**
 * ROOT holds `metadata.json` (the `metadata` object), and optionally `userdata_raw` and `vendordata_raw` (the raw
 * blobs, absent: an empty string). The document answers at every path: the URL is whatever Bigstep wrote into the
 * machine's url file, so the mock cannot know it. No `metadata.json`: 404, as a URL that names no instance.
 */
export async function bigstepAnswer(root: string, _path: string): Promise<KindAnswer | undefined> {
  let text: string;
  try {
    text = await fsp.readFile(posix.join(root, 'metadata.json'), 'utf8');
  } catch {
    return { status: 404, body: 'no metadata.json in the mock folder\n' };
  }
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch {
    return { status: 500, body: "the mock's metadata.json is not JSON\n" };
  }
  const doc = {
    metadata,
    vendordata_raw: await readOptional(posix.join(root, 'vendordata_raw')),
    userdata_raw: await readOptional(posix.join(root, 'userdata_raw')),
  };
  return { status: 200, body: JSON.stringify(doc), headers: { 'content-type': 'application/json' } };
}
