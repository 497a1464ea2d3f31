// cc_write_files: writes the files listed under write_files, inline or fetched from a `source` (defer: true ones are left to write_files_deferred).
import { posix } from 'node:path';
import { promisify } from 'node:util';
import { isTrue } from './support/config-values';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from './module';
import { zlib } from '../util/on-demand-builtins';
import { describeError } from '../util/errors';
import { readWriteFileSource, sourceUri, type SourceFetchOptions } from './support/write-file-source';

const gunzipAsync = (data: Uint8Array): Promise<Buffer> => promisify(zlib().gunzip)(data);
const DEFAULT_PERMS = 0o644;
const DEFAULT_OWNER = 'root:root';

type Extraction = 'base64' | 'gzip' | 'text';

/** canonicalize_extraction: the decoding steps an `encoding` value asks for, in order. */
export function extractionsFor(encoding: unknown, warn: (m: string) => void): Extraction[] {
  const e = typeof encoding === 'string' ? encoding.toLowerCase().trim() : '';
  if (e === 'gz' || e === 'gzip') return ['gzip'];
  if (['gz+base64', 'gzip+base64', 'gz+b64', 'gzip+b64'].includes(e)) return ['base64', 'gzip'];
  if (e === 'b64' || e === 'base64') return ['base64'];
  if (e && e !== 'text/plain') warn(`Unknown encoding type ${e}, assuming text/plain`);
  return ['text'];
}

/** decode_perms: ints as given, strings as octal, anything else the default (with a warning). */
export function decodePerms(perm: unknown, warn: (m: string) => void): number {
  if (perm === undefined || perm === null) return DEFAULT_PERMS;
  if (typeof perm === 'number') return Math.trunc(perm);
  const s = String(perm).trim();
  if (/^(0o?)?[0-7]+$/i.test(s)) return Number.parseInt(s.replace(/^0o/i, ''), 8);
  warn(`Undecodable permissions ${s}, returning default ${DEFAULT_PERMS.toString(8)}`);
  return DEFAULT_PERMS;
}

function asBytes(content: unknown): Buffer {
  if (content instanceof Uint8Array) return Buffer.from(content);
  if (content === undefined || content === null) return Buffer.alloc(0);
  return Buffer.from(typeof content === 'string' ? content : String(content), 'utf8');
}

async function extract(content: unknown, steps: Extraction[], where: string): Promise<Buffer> {
  let data = asBytes(content);
  for (const step of steps) {
    if (step === 'base64') data = Buffer.from(data.toString('latin1').replace(/\s+/g, ''), 'base64');
    else if (step === 'gzip') {
      try {
        data = await gunzipAsync(data);
      } catch (err) {
        throw new ModuleError('write_files', `${where}: content is not valid gzip data (${describeError(err)})`, { cause: err });
      }
    }
  }
  return data;
}

/** The entries of write_files (a list of mappings), checked. */
export function writeFilesEntries(module: string, cfg: CloudConfig): Array<Record<string, unknown>> {
  const list = cfg.write_files;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new ModuleError(module, `'write_files' must be a list of files, got ${typeof list}`);
  return list.map((f, i) => {
    if (typeof f !== 'object' || f === null || Array.isArray(f)) throw new ModuleError(module, `write_files[${i}] must be a mapping with a 'path'`);
    return f as Record<string, unknown>;
  });
}

/**
 * read_url_or_decode: the bytes of the entry's `source` URI as fetched (no decoding), else its `content` decoded;
 * undefined when the source failed and there is no content to fall back on.
 */
async function entryContents(ctx: ModuleContext, f: Record<string, unknown>, where: string, opts: SourceFetchOptions): Promise<Buffer | undefined> {
  const warn = (m: string) => ctx.log.warn(m);
  const uri = sourceUri(f.source);
  if (uri !== undefined) {
    try {
      return Buffer.from(await readWriteFileSource(ctx, f.source as Record<string, unknown>, uri, opts));
    } catch (err) {
      warn(`Failed to retrieve contents from source "${uri}"; falling back to data from "contents" key (${describeError(err)})`);
      if (f.content === undefined || f.content === null) return undefined;
    }
  }
  return extract(f.content ?? '', extractionsFor(f.encoding, warn), where);
}

/** Writes ENTRIES as cloud-init's write_files does; shared with write_files_deferred. */
/**
 * Creates the missing folders above a file and gives each of them the file's OWNER, as 25.1's write_file does
 * (util.ensure_dir with user and group, since 23.x; 22.4 left new folders to root). Folders that exist are untouched.
 */
async function makeParentDirs(ctx: ModuleContext, dir: string, owner: string): Promise<void> {
  const missing: string[] = [];
  for (let d = dir; d !== '/' && !(await ctx.platform.exists(d)); d = posix.dirname(d)) missing.unshift(d);
  for (const d of missing) await ctx.platform.mkdir(d, { owner });
}

export async function writeFileEntries(ctx: ModuleContext, module: string, entries: Array<Record<string, unknown>>, opts: SourceFetchOptions = {}): Promise<void> {
  const warn = (m: string) => ctx.log.warn(m);
  for (const [i, f] of entries.entries()) {
    const rawPath = f.path;
    if (typeof rawPath !== 'string' || !rawPath) {
      warn(`No path provided to write for entry ${i + 1} in module ${module}`);
      continue;
    }
    const path = posix.resolve('/', rawPath);
    const where = `write_files[${i}] (${path})`;
    const data = await entryContents(ctx, f, where, opts);
    if (data === undefined) {
      warn(`No content could be loaded for entry ${i + 1} in module ${module}; skipping`);
      continue;
    }
    const owner = typeof f.owner === 'string' && f.owner ? f.owner : DEFAULT_OWNER;
    const mode = decodePerms(f.permissions, warn);
    try {
      await makeParentDirs(ctx, posix.dirname(path), owner);
      await ctx.platform.writeFile(path, data, { mode, owner, append: isTrue(f.append) });
    } catch (err) {
      throw new ModuleError(module, `${where}: ${describeError(err)}`, { cause: err });
    }
  }
}

export const writeFiles: Module = {
  name: 'write_files',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['write_files'],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    const now = writeFilesEntries('write_files', cfg).filter((f) => !isTrue(f.defer));
    if (now.length === 0) {
      ctx.log.debug("Skipping module named write_files, no/empty 'write_files' key in configuration");
      return;
    }
    await writeFileEntries(ctx, 'write_files', now);
  },
};
