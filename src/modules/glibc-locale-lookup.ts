// Whether Debian bookworm's glibc (2.36) `locale charmap` in the target root would say "Cannot set …" for a set of
// locale variables, answered from the root's locale files so update-locale's check needs no child process.
//
// Followed from glibc 2.36: locale/programs/locale.c (setlocale of LC_CTYPE, then LC_MESSAGES, then LC_ALL, each
// failure printed through gettext), locale/setlocale.c, locale/findlocale.c (C and POSIX built in, name checks,
// archive, alias, then the per-directory variants and the codeset check), locale/loadarchive.c and
// locale/locarchive.h (archive layout and probing), locale/hashval.h, locale/loadlocale.c (the checks a category's
// data must pass), intl/explodename.c, intl/l10nflist.c, intl/localealias.c, iconv/gconv_cache.c and
// iconv/gconv_charset.h (codeset comparison), intl/dcigettext.c and intl/finddomain.c (when the message can be
// translated). Anything outside that is answered 'unknown', and the caller runs the real command.
import { Buffer } from 'node:buffer';
import type { FileStat, Platform } from '../platform/platform';

export type LocaleSettingsVerdict = 'ok' | 'cannot-set' | 'unknown';

/** A locale category as glibc 2.36 numbers and checks it (values from its langinfo.h and categories.def). */
interface Category {
  /** __LC_* */
  id: number;
  name: string;
  /** _NL_ITEM_INDEX (_NL_NUM_<category>): the least number of values, and (but for LC_CTYPE) the most. */
  items: number;
  /** The item holding the category's codeset name (CODESET, _NL_<category>_CODESET). */
  codesetItem: number;
  /** Items of type `word`, whose offsets must be 4-aligned. */
  wordItems: ReadonlySet<number>;
}

const category = (id: number, name: string, items: number, codesetItem: number, wordItems: number[]): Category => ({ id, name, items, codesetItem, wordItems: new Set(wordItems) });

const LC_CTYPE = category(0, 'LC_CTYPE', 86, 14, [13, 17, 18, 19, 30, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 66, 68, 70, 71]);
const LC_MESSAGES = category(5, 'LC_MESSAGES', 5, 4, []);
/** In the order setlocale (LC_ALL, "") loads them: from the last category down, LC_ALL (6) skipped. */
const LC_ALL_ORDER: readonly Category[] = [
  category(12, 'LC_IDENTIFICATION', 16, 15, []),
  category(11, 'LC_MEASUREMENT', 2, 1, []),
  category(10, 'LC_TELEPHONE', 5, 4, []),
  category(9, 'LC_ADDRESS', 13, 12, [6]),
  category(8, 'LC_NAME', 7, 6, []),
  category(7, 'LC_PAPER', 3, 2, [0, 1]),
  LC_MESSAGES,
  category(4, 'LC_MONETARY', 46, 45, [38, 39, 40, 41, 43, 44]),
  category(3, 'LC_COLLATE', 19, 18, [0, 13]),
  category(2, 'LC_TIME', 159, 110, [50, 102]),
  category(1, 'LC_NUMERIC', 6, 5, [3, 4]),
  LC_CTYPE,
];

/** LIMAGIC (category) of locale/localeinfo.h. */
function localeDataMagic(cat: Category): number {
  if (cat.id === 3) return (0x20051014 ^ cat.id) >>> 0;
  if (cat.id === 0) return 0x20090720;
  return (0x20031115 ^ cat.id) >>> 0;
}

/** The variables the check's environment may hold; any other (LOCPATH, GCONV_PATH, LD_*) changes what glibc does. */
const FOLLOWED_VARIABLES = new Set(['LANG', 'LANGUAGE', 'LC_ALL', ...LC_ALL_ORDER.map((c) => c.name)]);

/** Debian's compiled-in paths of glibc 2.36: COMPLOCALEDIR and LOCALE_ALIAS_PATH (as bookworm's libc.so.6 names them). */
const LOCALE_DIR = '/usr/lib/locale';
const ARCHIVE_PATH = `${LOCALE_DIR}/locale-archive`;
const ALIAS_FILE = '/usr/share/locale/locale.alias';
/** LOCALEDIR, where gettext looks for message catalogs. */
const MESSAGES_DIR = '/usr/share/locale';
/** The PATH directories platform.run searches before /usr/bin, where bookworm's `locale` is. */
const PATH_BEFORE_LOCALE = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin'];
const LOCALE_PROGRAM = '/usr/bin/locale';
/**
 * What one answer may read in all, by default. Reading costs about 3.5 ms a MiB on a loaded two-core VM (fresh
 * pages for each buffer) where starting `locale` costs 10-20 ms: a locale archive (3 MB for en_US.UTF-8 alone) or
 * a full locale's LC_COLLATE (2.5 MB) is left to the command. C.utf8's folder is 370 KB.
 */
export const DEFAULT_READ_BUDGET_BYTES = 1024 * 1024;

/** Something kiln does not follow; turned into 'unknown' at the top. */
class CannotVouch extends Error {
  override name = 'CannotVouch';
}

/**
 * Whether `locale charmap`, run in the target root with ENV (values '' count as unset, as getenv's empty
 * strings do for glibc), would print "Cannot set …": 'cannot-set' or 'ok' where kiln follows glibc 2.36 exactly,
 * 'unknown' otherwise (ONUNKNOWN hears why), and where the answer would need more than READBUDGETBYTES of files.
 */
export async function localeSettingsVerdict(
  platform: Platform,
  env: Readonly<Record<string, string>>,
  opts: { onUnknown?: (reason: string) => void; readBudgetBytes?: number } = {},
): Promise<LocaleSettingsVerdict> {
  try {
    return await decide(platform, env, opts.readBudgetBytes ?? DEFAULT_READ_BUDGET_BYTES);
  } catch (err) {
    opts.onUnknown?.(err instanceof CannotVouch ? err.message : `reading the locale files failed: ${String(err)}`);
    return 'unknown';
  }
}

async function decide(platform: Platform, env: Readonly<Record<string, string>>, readBudgetBytes: number): Promise<'ok' | 'cannot-set'> {
  if (platform.os !== 'linux' || platform.stat === undefined) throw new CannotVouch('not a Linux platform that can stat files');
  for (const [key, value] of Object.entries(env)) {
    if (!FOLLOWED_VARIABLES.has(key)) throw new CannotVouch(`${key} is set; only the locale variables are followed`);
    if (value.includes('\0')) throw new CannotVouch(`${key} holds a NUL character`);
  }
  // _nl_find_locale's order for setlocale (category, ""): LC_ALL, then the category's own variable, then LANG.
  const nameFor = (cat: Category): string => [env.LC_ALL, env[cat.name], env.LANG].find((v) => v !== undefined && v !== '') ?? 'C';
  const files = new RootFiles(platform, readBudgetBytes);
  // Any other name may need the archive: when it is too large to read, give up before reading anything.
  if (LC_ALL_ORDER.some((cat) => !isBuiltinName(nameFor(cat)))) await files.checkFits(ARCHIVE_PATH);
  const glibc = await identifyGlibc(files);
  const lookup = new LocaleLookup(files, glibc.gconvCachePath);
  // `locale` sets LC_CTYPE and LC_MESSAGES first: their failures are printed while LC_MESSAGES is still "C",
  // so untranslated.
  const ctype = await lookup.find(LC_CTYPE, nameFor(LC_CTYPE), BUILTIN_C);
  if (ctype === undefined) return 'cannot-set';
  const messagesName = nameFor(LC_MESSAGES);
  if ((await lookup.find(LC_MESSAGES, messagesName, ctype)) === undefined) return 'cannot-set';
  for (const cat of LC_ALL_ORDER) {
    if ((await lookup.find(cat, nameFor(cat), ctype)) !== undefined) continue;
    // "Cannot set LC_ALL …" goes through gettext in the LC_MESSAGES just set: untranslated in "C", or where
    // no catalog of glibc's messages exists for the languages asked for.
    if (isBuiltinName(messagesName) || !(await lookup.mayTranslate(messagesName, env.LANGUAGE, ctype))) return 'cannot-set';
    throw new CannotVouch(`${cat.name} fails while LC_MESSAGES is ${messagesName}, for which a catalog of glibc's messages may translate the message`);
  }
  return 'ok';
}

/** The locale glibc has built in, under its two names (C.UTF-8 is not: it is a directory, /usr/lib/locale/C.utf8). */
const BUILTIN_C = Symbol('the built-in C locale');
type Found = LocaleData | typeof BUILTIN_C;

function isBuiltinName(name: string): boolean {
  return name === 'C' || name === 'POSIX';
}

/** valid_locale_name of findlocale.c: at most 255 bytes, no "..", "../", "/..", "/../", a slash only first. */
function isValidLocaleName(name: string): boolean {
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > 255) return false;
  if (name.includes('/../') || name === '..' || name.startsWith('../') || name.endsWith('/..')) return false;
  return !name.includes('/') || name.startsWith('/');
}

/**
 * Names kiln follows: printable ASCII without '/'. A name starting with '/' is valid for glibc, but its variants
 * can make path components such as "..", which kiln's root-relative path resolution handles differently.
 */
function isPlainName(name: string): boolean {
  return /^[\x20-\x2e\x30-\x7e]*$/.test(name);
}

/** What identifyGlibc learns from the target's C library. */
interface GlibcBuild {
  gconvCachePath: string;
}

/**
 * Checks that `locale` is bookworm's glibc 2.36 program (its version banner; libc-bin 2.36 requires libc6 2.36) and
 * finds the one multiarch library folder, whose gconv module cache glibc reads (GCONV_DIR).
 */
async function identifyGlibc(files: RootFiles): Promise<GlibcBuild> {
  for (const dir of PATH_BEFORE_LOCALE) {
    if (await files.platform.exists(`${dir}/locale`)) throw new CannotVouch(`${dir}/locale comes before ${LOCALE_PROGRAM} on PATH`);
  }
  const program = await files.read(LOCALE_PROGRAM);
  if (program === undefined) throw new CannotVouch(`no ${LOCALE_PROGRAM}`);
  // ELF, 64-bit, little-endian: the layout of the locale files read below.
  if (program.length < 6 || program.readUInt32BE(0) !== 0x7f454c46 || program[4] !== 2 || program[5] !== 1) throw new CannotVouch(`${LOCALE_PROGRAM} is not a 64-bit little-endian ELF program`);
  if (!program.includes('\0(Debian GLIBC 2.36-')) throw new CannotVouch(`${LOCALE_PROGRAM} is not from Debian's glibc 2.36`);
  if (!program.includes('\0Cannot set %s to default locale\0')) throw new CannotVouch(`${LOCALE_PROGRAM} does not print the message followed here`);
  // Bookworm has merged /usr: the libraries are under /usr/lib/<triplet>, one C library in all.
  if ((await files.stat('/lib', { followLinks: false }))?.type !== 'symlink') throw new CannotVouch('/lib is not a link into /usr (not a merged-/usr system)');
  const triplets: string[] = [];
  for (const entry of await files.platform.listDir('/usr/lib')) {
    if (/-linux-gnu/.test(entry) && (await files.stat(`/usr/lib/${entry}/libc.so.6`))?.type === 'file') triplets.push(entry);
  }
  if (triplets.length !== 1) throw new CannotVouch(`${triplets.length} C libraries under /usr/lib/*-linux-gnu*`);
  return { gconvCachePath: `/usr/lib/${triplets[0]}/gconv/gconv-modules.cache` };
}

/** The target's files, read through the platform within a budget of bytes. */
class RootFiles {
  private bytesRead = 0;

  constructor(
    readonly platform: Platform,
    private readonly budgetBytes: number,
  ) {}

  stat(path: string, opts?: { followLinks?: boolean }): Promise<FileStat | undefined> {
    if (this.platform.stat === undefined) throw new CannotVouch('the platform cannot stat files');
    return this.platform.stat(path, opts);
  }

  /** The size of PATH when it is a regular file that fits in what is left to read, undefined when it does not exist. */
  async checkFits(path: string): Promise<number | undefined> {
    const st = await this.stat(path);
    if (st === undefined) return undefined;
    if (st.type !== 'file') throw new CannotVouch(`${path} is not a regular file`);
    if (this.bytesRead + st.size > this.budgetBytes) throw new CannotVouch(`reading ${path} (${st.size} bytes) would cost more than starting locale`);
    return st.size;
  }

  /** A regular file's bytes, undefined when it does not exist; anything else is not followed. */
  async read(path: string): Promise<Buffer | undefined> {
    if ((await this.checkFits(path)) === undefined) return undefined;
    const data = await this.platform.readFile(path);
    this.bytesRead += data.byteLength;
    return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  }
}

/** The NUL-terminated string at OFFSET of DATA (Latin-1, byte for byte); a string running off the end is corrupt. */
function cString(data: Buffer, offset: number, what: string): string {
  const end = offset < data.length ? data.indexOf(0, offset) : -1;
  if (end < 0) throw new CannotVouch(`${what}: a string runs off the end of the data`);
  return data.toString('latin1', offset, end);
}

/** One category's data, checked as _nl_intern_locale_data checks it. */
class LocaleData {
  private asciiFolding: boolean | undefined;

  constructor(
    readonly bytes: Buffer,
    private readonly where: string,
  ) {}

  static parse(cat: Category, bytes: Buffer, where: string): LocaleData {
    const bad = (why: string): never => {
      throw new CannotVouch(`${where}: ${why} (glibc rejects the data)`);
    };
    if (bytes.length < 8) bad('shorter than its header');
    if (bytes.readUInt32LE(0) !== localeDataMagic(cat)) bad(`not ${cat.name} data`);
    const nstrings = bytes.readUInt32LE(4);
    if (nstrings < cat.items || 8 + nstrings * 4 >= bytes.length) bad('too few values');
    if (cat.id !== LC_CTYPE.id && nstrings > cat.items) bad('too many values');
    for (let i = 0; i < nstrings; i++) {
      const offset = bytes.readUInt32LE(8 + i * 4);
      if (offset > bytes.length) bad(`value ${i} is past the end`);
      if (cat.wordItems.has(i) && offset % 4 !== 0) bad(`value ${i} is not aligned`);
    }
    return new LocaleData(bytes, where);
  }

  valueOffset(item: number): number {
    return this.bytes.readUInt32LE(8 + item * 4);
  }

  string(item: number): string {
    return cString(this.bytes, this.valueOffset(item), this.where);
  }

  /**
   * For LC_CTYPE data: whether its isspace and tolower agree with the C locale's wherever locale.alias parsing and
   * the alias search (strcasecmp) look with an ASCII name: ASCII classified and lowered as in C, other bytes never
   * spaces and never lowered into ASCII. Then the alias file reads the same under this locale as under C.
   */
  foldsAsciiAsC(): boolean {
    if (this.asciiFolding !== undefined) return this.asciiFolding;
    const classes = this.valueOffset(0); // _NL_CTYPE_CLASS: uint16 per byte value, from -128
    const lower = this.valueOffset(3); // _NL_CTYPE_TOLOWER: int32 per byte value, from -128
    if (classes + 384 * 2 > this.bytes.length || lower + 384 * 4 > this.bytes.length) throw new CannotVouch(`${this.where}: character tables past the end`);
    let same = true;
    for (let c = 0; c < 256 && same; c++) {
      const isSpace = (this.bytes.readUInt16LE(classes + (c + 128) * 2) & 0x2000) !== 0; // _ISspace, little-endian _ISbit (5)
      const lowered = this.bytes.readInt32LE(lower + (c + 128) * 4);
      same = isSpace === isCSpace(c) && (c < 0x80 ? lowered === asciiLower(c) : lowered >= 0x80);
    }
    this.asciiFolding = same;
    return same;
  }
}

function isCSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

function asciiLower(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}

/** _nl_normalize_codeset (intl/l10nflist.c): letters lowered, digits kept, the rest dropped; "iso" before all-digit names. */
export function normalizeCodeset(codeset: string): string {
  const kept = codeset.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  return /^[0-9]*$/.test(kept) ? `iso${kept}` : kept;
}

/** compute_hashval of locale/hashval.h, as loadarchive.c uses it (32 bits): the locale-archive's name hash. */
export function localeArchiveHash(name: Uint8Array): number {
  let hval = name.length >>> 0;
  for (const byte of name) hval = (((hval << 9) | (hval >>> 23)) + byte) >>> 0;
  return hval !== 0 ? hval : 0xffffffff;
}

/** __hash_string of intl/hash-string.c (hashpjw) as gconv_cache.c keeps it (32 bits): the gconv cache's hash. */
export function gconvCacheHash(name: string): number {
  let hval = 0;
  for (let i = 0; i < name.length; i++) {
    hval = ((hval << 4) + name.charCodeAt(i)) >>> 0;
    const g = hval & 0xf0000000;
    if (g !== 0) hval = (hval ^ (g >>> 24) ^ g) >>> 0;
  }
  return hval;
}

/**
 * The name the archive is searched under (loadarchive.c): the part after the first '.' up to '@' replaced by its
 * normalized codeset, unless empty or starting with '@'.
 */
export function archiveLookupName(name: string): string {
  const dot = name.indexOf('.');
  if (dot < 0 || dot + 1 >= name.length || name[dot + 1] === '@') return name;
  const at = name.indexOf('@', dot + 1);
  const end = at < 0 ? name.length : at;
  return name.slice(0, dot + 1) + normalizeCodeset(name.slice(dot + 1, end)) + name.slice(end);
}

const XPG_NORM_CODESET = 1;
const XPG_CODESET = 2;
const XPG_TERRITORY = 4;
const XPG_MODIFIER = 8;

/**
 * The folders under /usr/lib/locale tried for NAME, in order (_nl_explode_name, then _nl_make_l10nflist's
 * successors: every subset of the parts found, most specific first, never both the codeset and its normalized
 * form), and the codeset named, which the data found must then match (undefined when NAME names none).
 */
export function localeDirectoryVariants(name: string): { variants: string[]; codeset: string | undefined } {
  let i = 0;
  while (i < name.length && !'_@.'.includes(name[i] as string)) i++;
  if (i === 0) return { variants: [name], codeset: undefined };
  const language = name.slice(0, i);
  let territory = '';
  let codeset: string | undefined;
  let normalized = '';
  let modifier = '';
  let mask = 0;
  if (name[i] === '_') {
    const start = ++i;
    while (i < name.length && name[i] !== '.' && name[i] !== '@') i++;
    territory = name.slice(start, i);
    if (territory !== '') mask |= XPG_TERRITORY;
  }
  if (name[i] === '.') {
    const start = ++i;
    while (i < name.length && name[i] !== '@') i++;
    codeset = name.slice(start, i);
    if (codeset !== '') {
      mask |= XPG_CODESET;
      normalized = normalizeCodeset(codeset);
      if (normalized !== codeset) mask |= XPG_NORM_CODESET;
    }
  }
  if (name[i] === '@') {
    modifier = name.slice(i + 1);
    if (modifier !== '') mask |= XPG_MODIFIER;
  }
  const variants: string[] = [];
  for (let cnt = mask; cnt >= 0; cnt--) {
    if ((cnt & ~mask) !== 0 || ((cnt & XPG_CODESET) !== 0 && (cnt & XPG_NORM_CODESET) !== 0)) continue;
    variants.push(
      language +
        (cnt & XPG_TERRITORY ? `_${territory}` : '') +
        (cnt & XPG_CODESET ? `.${codeset}` : '') +
        (cnt & XPG_NORM_CODESET ? `.${normalized}` : '') +
        (cnt & XPG_MODIFIER ? `@${modifier}` : ''),
    );
  }
  return { variants, codeset };
}

/** strip + upstr of iconv/gconv_charset.h: the form codesets are compared in, with exactly two slashes. */
export function gconvCharsetKey(codeset: string): string {
  let out = '';
  let slashes = 0;
  for (const ch of codeset) {
    if (/[A-Za-z0-9_\-.,:]/.test(ch)) out += ch.toUpperCase();
    else if (ch === '/') {
      if (++slashes === 3) break;
      out += '/';
    }
  }
  return out + '/'.repeat(Math.max(0, 2 - slashes));
}

/** A locale-archive (locale/locarchive.h), read whole and checked as far as loadarchive.c relies on it. */
class LocaleArchive {
  private readonly namehashOffset: number;
  private readonly namehashSize: number;

  constructor(private readonly bytes: Buffer) {
    if (bytes.length < 56) throw new CannotVouch(`${ARCHIVE_PATH} is shorter than its header`);
    if (bytes.readUInt32LE(0) !== 0xde020109) throw new CannotVouch(`${ARCHIVE_PATH} is not a locale archive`);
    const u32 = (field: number): number => bytes.readUInt32LE(field * 4);
    this.namehashOffset = u32(2);
    this.namehashSize = u32(4);
    const headEnd = Math.max(this.namehashOffset + this.namehashSize * 12, u32(5) + u32(6), u32(8) + u32(9) * (4 + 13 * 8));
    if (headEnd > bytes.length) throw new CannotVouch(`${ARCHIVE_PATH} is shorter than its tables`);
    if (this.namehashSize <= 2) throw new CannotVouch(`${ARCHIVE_PATH} has no usable name table`);
  }

  /** The category records of the locale stored under NAME (already normalized), undefined when there is none. */
  find(name: string): Array<{ offset: number; length: number }> | undefined {
    const key = Buffer.from(name, 'latin1');
    const hval = localeArchiveHash(key);
    let idx = hval % this.namehashSize;
    const incr = 1 + (hval % (this.namehashSize - 2));
    for (let probes = 0; ; probes++) {
      if (probes > this.namehashSize) throw new CannotVouch(`${ARCHIVE_PATH}: the name table has no free slot`);
      const entry = this.namehashOffset + idx * 12;
      const nameOffset = this.bytes.readUInt32LE(entry + 4);
      if (nameOffset === 0) return undefined;
      if (this.bytes.readUInt32LE(entry) === hval && cString(this.bytes, nameOffset, ARCHIVE_PATH) === name) {
        const locrec = this.bytes.readUInt32LE(entry + 8);
        // A removed locale leaves its name with no record.
        if (locrec === 0) return undefined;
        if (locrec + 4 + 13 * 8 > this.bytes.length) throw new CannotVouch(`${ARCHIVE_PATH}: a locale record is past the end`);
        const records: Array<{ offset: number; length: number }> = [];
        for (let cat = 0; cat < 13; cat++) {
          const offset = this.bytes.readUInt32LE(locrec + 4 + cat * 8);
          const length = this.bytes.readUInt32LE(locrec + 8 + cat * 8);
          if (cat !== 6 && offset + length > this.bytes.length) throw new CannotVouch(`${ARCHIVE_PATH}: locale data past the end`);
          records.push({ offset, length });
        }
        return records;
      }
      idx += incr;
      if (idx >= this.namehashSize) idx -= this.namehashSize;
    }
  }

  data(records: Array<{ offset: number; length: number }>, cat: Category, name: string): LocaleData {
    const rec = records[cat.id] as { offset: number; length: number };
    return LocaleData.parse(cat, this.bytes.subarray(rec.offset, rec.offset + rec.length), `${ARCHIVE_PATH} (${name} ${cat.name})`);
  }
}

/** iconv's module cache (iconv/iconvconfig.h), as gconv_cache.c checks and searches it. */
class GconvCache {
  private readonly stringOffset: number;
  private readonly hashOffset: number;
  private readonly hashSize: number;

  constructor(
    private readonly bytes: Buffer,
    private readonly path: string,
  ) {
    const invalid = (): never => {
      throw new CannotVouch(`${path} is not a usable gconv cache (glibc would read the gconv-modules files)`);
    };
    if (bytes.length < 16 || bytes.readUInt32LE(0) !== 0x20010324) invalid();
    this.stringOffset = bytes.readUInt16LE(4);
    this.hashOffset = bytes.readUInt16LE(6);
    this.hashSize = bytes.readUInt16LE(8);
    const moduleOffset = bytes.readUInt16LE(10);
    const otherconvOffset = bytes.readUInt16LE(12);
    if (this.stringOffset >= bytes.length || this.hashOffset >= bytes.length || this.hashSize === 0 || this.hashOffset + this.hashSize * 4 > bytes.length || moduleOffset >= bytes.length || otherconvOffset > bytes.length) invalid();
    if (this.hashSize <= 2) throw new CannotVouch(`${path}: a hash table this small is not followed`);
  }

  /** find_module_idx: the module NAME (a gconvCharsetKey) belongs to, undefined when the cache does not know it. */
  moduleIndex(name: string): number | undefined {
    const hval = gconvCacheHash(name);
    let idx = hval % this.hashSize;
    const step = 1 + (hval % (this.hashSize - 2));
    const limit = this.bytes.length - this.stringOffset;
    for (let probes = 0; ; probes++) {
      if (probes > this.hashSize) throw new CannotVouch(`${this.path}: the hash table has no free slot`);
      const entry = this.hashOffset + idx * 4;
      const stringOffset = this.bytes.readUInt16LE(entry);
      if (stringOffset === 0) return undefined;
      if (stringOffset < limit && cString(this.bytes, this.stringOffset + stringOffset, this.path) === name) return this.bytes.readUInt16LE(entry + 2);
      idx += step;
      if (idx >= this.hashSize) idx -= this.hashSize;
    }
  }
}

/** locale.alias as intl/localealias.c reads it: lines of at most 399 bytes, the first two words, '#' comments. */
export function parseLocaleAliases(file: Uint8Array): Map<string, string[]> {
  const text = Buffer.from(file.buffer, file.byteOffset, file.byteLength).toString('latin1');
  if (text.includes('\0')) throw new CannotVouch(`${ALIAS_FILE} holds a NUL byte`);
  const aliases = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    // fgets into char buf[400]: a longer line's first 399 bytes are read as a line, the rest skipped. Words are
    // split at C's isspace; a value must follow the alias.
    const m = /^[ \t\v\f\r]*([^ \t\v\f\r#][^ \t\v\f\r]*)[ \t\v\f\r]+([^ \t\v\f\r]+)/.exec(line.length > 399 ? line.slice(0, 399) : line);
    if (m === null) continue;
    // strcasecmp in the C locale: only A-Z fold.
    const key = (m[1] as string).replace(/[A-Z]+/g, (c) => c.toLowerCase());
    const values = aliases.get(key);
    if (values === undefined) aliases.set(key, [m[2] as string]);
    else values.push(m[2] as string);
  }
  return aliases;
}

/** One `locale` process's view of the target's locale files, read lazily and kept. */
class LocaleLookup {
  private archive: LocaleArchive | null | undefined;
  private aliases: Map<string, string[]> | null | undefined;
  private gconv: GconvCache | undefined;
  private readonly folders = new Map<string, boolean>();
  /** Category files already loaded, by path (glibc keeps them too: _nl_locale_file_list). */
  private readonly loaded = new Map<string, LocaleData | undefined>();

  constructor(
    private readonly files: RootFiles,
    private readonly gconvCachePath: string,
  ) {}

  /** _nl_find_locale: CATEGORY's data for NAME, or undefined where setlocale fails; CTYPE is the LC_CTYPE in force. */
  async find(cat: Category, name: string, ctype: Found): Promise<Found | undefined> {
    if (isBuiltinName(name)) return BUILTIN_C;
    if (!isValidLocaleName(name)) return undefined;
    if (!isPlainName(name)) throw new CannotVouch(`the locale name ${JSON.stringify(name)} is not followed (a slash, or not printable ASCII)`);
    const archived = await this.fromArchive(cat, name);
    if (archived !== undefined) return archived;
    const alias = await this.expandAlias(name, ctype);
    if (alias !== undefined) {
      if (!isPlainName(alias)) throw new CannotVouch(`the alias ${JSON.stringify(alias)} of ${name} is not followed`);
      const aliasArchived = await this.fromArchive(cat, alias);
      if (aliasArchived !== undefined) return aliasArchived;
    }
    return this.fromDirectories(cat, alias ?? name);
  }

  private async fromArchive(cat: Category, name: string): Promise<LocaleData | undefined> {
    if (this.archive === undefined) {
      const bytes = await this.files.read(ARCHIVE_PATH);
      this.archive = bytes === undefined ? null : new LocaleArchive(bytes);
    }
    if (this.archive === null) return undefined;
    const records = this.archive.find(archiveLookupName(name));
    return records === undefined ? undefined : this.archive.data(records, cat, name);
  }

  /** _nl_expand_alias: the one value of NAME in locale.alias, compared without case as strcasecmp does. */
  private async expandAlias(name: string, ctype: Found): Promise<string | undefined> {
    if (this.aliases === undefined) {
      const bytes = await this.files.read(ALIAS_FILE);
      this.aliases = bytes === undefined ? null : parseLocaleAliases(bytes);
    }
    if (this.aliases === null) return undefined;
    // The file is read, sorted and searched under the LC_CTYPE in force, not under C.
    if (ctype !== BUILTIN_C && !ctype.foldsAsciiAsC()) throw new CannotVouch('the alias file would be searched under an LC_CTYPE whose case folding differs from C');
    const values = this.aliases.get(name.toLowerCase());
    if (values === undefined) return undefined;
    if (new Set(values).size > 1) throw new CannotVouch(`${ALIAS_FILE} gives ${name} more than one value`);
    return values[0];
  }

  /**
   * Whether gettext could find a catalog of glibc's messages (domain "libc") for LC_MESSAGES NAME (intl/dcigettext.c,
   * intl/finddomain.c): the languages of LANGUAGE, or NAME, up to a "C" or "POSIX", each alias-expanded, in all
   * their variants under /usr/share/locale. Without any such file the message stays untranslated.
   */
  async mayTranslate(name: string, language: string | undefined, ctype: Found): Promise<boolean> {
    const languages = language !== undefined && language !== '' ? language.split(':').filter((l) => l !== '') : [name];
    for (const item of languages) {
      if (isBuiltinName(item)) return false;
      if (!isPlainName(item)) throw new CannotVouch(`the language ${JSON.stringify(item)} is not followed`);
      const alias = await this.expandAlias(item, ctype);
      if (alias !== undefined && !isPlainName(alias)) throw new CannotVouch(`the alias ${JSON.stringify(alias)} of ${item} is not followed`);
      for (const variant of localeDirectoryVariants(alias ?? item).variants) {
        if ((await this.files.stat(`${MESSAGES_DIR}/${variant}/LC_MESSAGES/libc.mo`)) !== undefined) return true;
      }
    }
    return false;
  }

  private async isFolder(path: string): Promise<boolean> {
    let known = this.folders.get(path);
    if (known === undefined) {
      known = (await this.files.stat(path))?.type === 'directory';
      this.folders.set(path, known);
    }
    return known;
  }

  /** The per-locale folders: the first variant whose category file loads, then the codeset check. */
  private async fromDirectories(cat: Category, name: string): Promise<LocaleData | undefined> {
    const { variants, codeset } = localeDirectoryVariants(name);
    let found: LocaleData | undefined;
    for (const variant of variants) {
      const folder = `${LOCALE_DIR}/${variant}`;
      if (!(await this.isFolder(folder))) continue;
      let path = `${folder}/${cat.name}`;
      let st = await this.files.stat(path);
      if (st?.type === 'directory') {
        path = `${path}/SYS_${cat.name}`;
        st = await this.files.stat(path);
      }
      if (st === undefined) continue;
      // An empty file cannot be mapped: glibc treats it as missing.
      if (st.type === 'file' && st.size === 0) continue;
      if (!this.loaded.has(path)) {
        const bytes = await this.files.read(path);
        this.loaded.set(path, bytes === undefined ? undefined : LocaleData.parse(cat, bytes, path));
      }
      found = this.loaded.get(path);
      if (found !== undefined) break;
    }
    if (found === undefined || codeset === undefined) return found;
    return (await this.sameCharset(codeset, found.string(cat.codesetItem))) ? found : undefined;
  }

  /** __gconv_compare_alias on the stripped names: equal, or one module in the gconv cache. */
  private async sameCharset(requested: string, actual: string): Promise<boolean> {
    if (!isPlainName(actual)) throw new CannotVouch(`the codeset ${JSON.stringify(actual)} of a locale is not followed`);
    const a = gconvCharsetKey(requested);
    const b = gconvCharsetKey(actual);
    if (a === b) return true;
    if (this.gconv === undefined) {
      const bytes = await this.files.read(this.gconvCachePath);
      if (bytes === undefined) throw new CannotVouch(`no ${this.gconvCachePath} (glibc would read the gconv-modules files)`);
      this.gconv = new GconvCache(bytes, this.gconvCachePath);
    }
    const i = this.gconv.moduleIndex(a);
    const j = this.gconv.moduleIndex(b);
    return i !== undefined && i === j;
  }
}
