// cc_write_files: writes the files listed under write_files, inline or fetched from a `source` (defer: true ones are
// left to write_files_deferred).
import { posix } from 'node:path';
import { promisify } from 'node:util';
import type { CloudConfigValue } from '../config/schema/cloud-config-types';
import { pyTruthy } from '../util/python-truthy';
import { pyStrRepr } from '../util/python-str-repr';
import { type Module, type ModuleContext, ModuleError } from './module';
import { configModule } from './support/config-module';
import { readConfigValue, type ReaderWarn, WarningReader } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { zlib } from '../util/on-demand-builtins';
import { describeError } from '../util/errors';
import { readWriteFileSource, sourceUri, type SourceFetchOptions } from './support/write-file-source';

const gunzipAsync = (data: Uint8Array): Promise<Buffer> => promisify(zlib().gunzip)(data);
const DEFAULT_PERMS = 0o644;
const DEFAULT_OWNER = 'root:root';

type Extraction = 'base64' | 'gzip' | 'text';

/** A write_files entry as the schema has it, once writeFileEntry has read it. */
export type WriteFileEntry = CloudConfigValue<'write_files'>[number];

/** The encodings canonicalize_extraction knows (lower-cased and stripped). */
const KNOWN_ENCODINGS = ['gz', 'gzip', 'gz+base64', 'gzip+base64', 'gz+b64', 'gzip+b64', 'b64', 'base64', 'text/plain'];

/**
 * An encoding as canonicalize_extraction reads it: lower()'d and strip()'d; one it does not know is warned about and
 * read as text/plain.
 */
const knownEncoding = new WarningReader(
  (e) => (typeof e === 'string' ? KNOWN_ENCODINGS.find((k) => k === e.toLowerCase().trim()) : e),
  (e) => `Unknown encoding type ${String(e).toLowerCase().trim()}, assuming text/plain`,
);

/**
 * decode_perms' int(perm) of a number (a YAML 0644 is 420), in the octal digits the schema's string has; others
 * str()'d.
 */
function entryPermissions(perm: unknown): unknown {
  if (perm === null) return undefined;
  if (typeof perm === 'boolean') return perm ? '1' : '0';
  if (typeof perm === 'number') return `0${Math.trunc(perm).toString(8)}`;
  return readConfigValue('str', perm);
}

/**
 * One write_files entry as cc_write_files reads it (f_info.get and get_cfg_option_bool): a path that is missing or
 * Python-false is '' (warned about and skipped when the files are written), null content, owner and source are
 * absent, permissions: 0644 is its number, a Python-false encoding is none and others as canonicalize_extraction
 * reads them, append and defer by get_cfg_option_bool, a source's header values str()'d (kiln's leniency); the
 * keys cloud-init never reads are left out. An entry that is no mapping is left to the schema's check.
 */
function writeFileEntry(entry: unknown, warn?: ReaderWarn): unknown {
  if (!isRecord(entry)) return entry;
  const unlessNull = (v: unknown) => (v === null ? undefined : v);
  const headers = (h: unknown) =>
    isRecord(h)
      ? Object.fromEntries(
          Object.entries(h)
            .filter(([, v]) => v !== null)
            .map(([k, v]) => [k, readConfigValue('str', v)]),
        )
      : h;
  const read = readConfigValue(
    {
      path: (p: unknown) => (pyTruthy(p) ? p : ''),
      content: unlessNull,
      source: (src: unknown) => (src === null ? undefined : readConfigValue({ uri: 'as-is', headers }, src)),
      owner: unlessNull,
      permissions: entryPermissions,
      encoding: (e: unknown, w?: ReaderWarn) => (pyTruthy(e) ? readConfigValue(knownEncoding, e, w) : undefined),
      append: 'bool',
      defer: 'bool',
    },
    entry,
    warn,
  ) as object;
  return { path: '', ...read };
}

/**
 * write_files as cc_write_files (DEFERRED false) or cc_write_files_deferred (true) reads it: null as no files (kiln's
 * leniency), only the entries whose defer (get_cfg_option_bool) is DEFERRED, each as writeFileEntry reads it (so
 * each module warns about, and fails on, only the files it writes). An entry that is no mapping is write_files'.
 */
export function writeFilesSetting(deferred: boolean): (files: unknown, warn?: ReaderWarn) => unknown {
  return (files, warn) => {
    if (files === null) return undefined;
    if (!Array.isArray(files)) return files;
    const mine = files.filter((f: unknown) =>
      isRecord(f) ? readConfigValue('bool', f.defer ?? false) === deferred : !deferred,
    );
    return mine.map((f: unknown) => writeFileEntry(f, warn));
  };
}

/** canonicalize_extraction: the decoding steps an encoding (as writeFileEntry reads it) asks for, in order. */
export function extractionsFor(encoding: string | undefined): Extraction[] {
  if (encoding === 'gz' || encoding === 'gzip') return ['gzip'];
  if (encoding === 'gz+base64' || encoding === 'gzip+base64' || encoding === 'gz+b64' || encoding === 'gzip+b64')
    return ['base64', 'gzip'];
  if (encoding === 'b64' || encoding === 'base64') return ['base64'];
  return ['text'];
}

/**
 * decode_perms: a string (as writeFileEntry reads it) as octal, anything else the default with 25.1's warning, which
 * gives the text as its repr() ("%o" of a str raises, so 25.1 falls back to "%r").
 */
export function decodePerms(perm: string | undefined, warn: (m: string) => void): number {
  if (perm === undefined) return DEFAULT_PERMS;
  const s = perm.trim();
  if (/^(0o?)?[0-7]+$/i.test(s)) return Number.parseInt(s.replace(/^0o/i, ''), 8);
  warn(`Undecodable permissions ${pyStrRepr(perm)}, returning default ${DEFAULT_PERMS.toString(8)}`);
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
        throw new ModuleError('write_files', `${where}: content is not valid gzip data (${describeError(err)})`, {
          cause: err,
        });
      }
    }
  }
  return data;
}

/**
 * read_url_or_decode: the bytes of the entry's `source` URI as fetched (no decoding), else its `content` decoded;
 * undefined when the source failed and there is no content to fall back on.
 */
async function entryContents(
  ctx: ModuleContext,
  f: WriteFileEntry,
  where: string,
  opts: SourceFetchOptions,
): Promise<Buffer | undefined> {
  const uri = sourceUri(f.source);
  if (f.source !== undefined && uri !== undefined) {
    try {
      return Buffer.from(await readWriteFileSource(ctx, f.source, uri, opts));
    } catch (err) {
      ctx.log.warn(
        `Failed to retrieve contents from source "${uri}"; falling back to data from "contents" key (${describeError(err)})`,
      );
      if (f.content === undefined) return undefined;
    }
  }
  return extract(f.content ?? '', extractionsFor(f.encoding), where);
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

export async function writeFileEntries(
  ctx: ModuleContext,
  module: string,
  entries: readonly WriteFileEntry[],
  opts: SourceFetchOptions = {},
): Promise<void> {
  const warn = (m: string) => ctx.log.warn(m);
  for (const [i, f] of entries.entries()) {
    const rawPath = f.path;
    if (!rawPath) {
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
    const owner = f.owner || DEFAULT_OWNER;
    const mode = decodePerms(f.permissions, warn);
    try {
      await makeParentDirs(ctx, posix.dirname(path), owner);
      // util.chmod skips a mode of 0 (falsy): the file keeps its mode, a new one open()'s 0644 under umask 022.
      await ctx.platform.writeFile(path, data, { ...(mode ? { mode } : {}), owner, append: f.append === true });
    } catch (err) {
      throw new ModuleError(module, `${where}: ${describeError(err)}`, { cause: err });
    }
  }
}

export const writeFiles: Module = configModule({
  name: 'write_files',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['write_files'],
  configKeys: { write_files: writeFilesSetting(false) },
  async run(ctx, cfg): Promise<void> {
    const now = cfg.write_files ?? [];
    if (now.length === 0) {
      ctx.log.debug("Skipping module named write_files, no/empty 'write_files' key in configuration");
      return;
    }
    await writeFileEntries(ctx, 'write_files', now);
  },
});
