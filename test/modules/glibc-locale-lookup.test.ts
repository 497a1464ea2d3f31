// kiln's in-process answer to "would `locale charmap` say Cannot set" against the real command in a Debian rootfs
// with real compiled locales (in the archive and in folders), over a table of environments; and the archive hash,
// codeset normalisation, folder variants and alias parsing on known values.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  archiveLookupName,
  gconvCacheHash,
  gconvCharsetKey,
  localeArchiveHash,
  localeDirectoryVariants,
  localeSettingsVerdict,
  normalizeCodeset,
  parseLocaleAliases,
} from '../../src/modules/glibc-locale-lookup';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

const canRun = (): boolean => isRoot() && hasCommand('unshare') && hasCommand('debootstrap');
const WHY = 'needs root, unshare and debootstrap for the cached Debian rootfs';

const LOCALE_VARIABLES = ['LANG', 'LC_CTYPE', 'LC_NUMERIC', 'LC_TIME', 'LC_COLLATE', 'LC_MONETARY', 'LC_MESSAGES', 'LC_PAPER', 'LC_NAME', 'LC_ADDRESS', 'LC_TELEPHONE', 'LC_MEASUREMENT', 'LC_IDENTIFICATION', 'LC_ALL'];

/**
 * The environments compared, as update-locale's check sets them (the variables not named are empty). `common`:
 * names kiln must answer itself in the rootfs with the generated locales.
 */
const ENVIRONMENTS: Array<{ env: Record<string, string>; common?: true }> = [
  { env: {}, common: true },
  { env: { LANG: '' }, common: true },
  { env: { LANG: 'C' }, common: true },
  { env: { LANG: 'POSIX' }, common: true },
  { env: { LANG: 'C.UTF-8' }, common: true },
  { env: { LANG: 'C.utf8' }, common: true },
  { env: { LANG: 'C.UTF8' }, common: true },
  { env: { LANG: 'c.utf8' }, common: true },
  { env: { LANG: 'en_US.UTF-8' }, common: true },
  { env: { LANG: 'en_US.utf8' }, common: true },
  { env: { LANG: 'en_US' }, common: true },
  { env: { LANG: 'en_US.UTF8' }, common: true },
  { env: { LANG: 'en_US.utf-8' }, common: true },
  { env: { LANG: 'EN_us.UTF-8' }, common: true },
  { env: { LANG: 'en_US.ISO-8859-1' }, common: true },
  { env: { LANG: 'en_GB.UTF-8' }, common: true },
  { env: { LANG: 'en' }, common: true },
  { env: { LANG: 'de_DE' }, common: true },
  { env: { LANG: 'de_DE.iso88591' }, common: true },
  { env: { LANG: 'de_DE.ISO-8859-1' }, common: true },
  { env: { LANG: 'de_DE.88591' }, common: true },
  { env: { LANG: 'de_DE.UTF-8' }, common: true },
  { env: { LANG: 'de_DE@euro' }, common: true },
  { env: { LANG: 'sr_RS@latin' }, common: true },
  { env: { LANG: 'sr_RS.UTF-8@latin' }, common: true },
  { env: { LANG: 'sr_RS' }, common: true },
  { env: { LANG: 'sr_RS@cyrillic' }, common: true },
  { env: { LANG: 'tr_TR' }, common: true },
  { env: { LANG: 'tr_TR.ISO-8859-9' }, common: true },
  { env: { LANG: 'xx_YY.UTF-8' }, common: true },
  { env: { LANG: 'xx_YY' }, common: true },
  // Aliases: german/deutsch/turkish are in the archive (localedef -A), french only in locale.alias, english nowhere.
  { env: { LANG: 'german' }, common: true },
  { env: { LANG: 'GERMAN' }, common: true },
  { env: { LANG: 'deutsch' }, common: true },
  { env: { LANG: 'turkish' }, common: true },
  { env: { LANG: 'french' }, common: true },
  { env: { LANG: 'english' }, common: true },
  { env: { LANG: 'Polish' }, common: true },
  // Folders: es_ES.utf8 (UTF-8), it_IT (ISO-8859-1), nl_NL.UTF-8 (renamed, UTF-8), xx_BROKEN (no LC_TIME).
  { env: { LANG: 'es_ES.utf8' }, common: true },
  { env: { LANG: 'es_ES.UTF-8' }, common: true },
  { env: { LANG: 'es_ES' }, common: true },
  { env: { LANG: 'es_ES.ISO-8859-1' }, common: true },
  { env: { LANG: 'es_ES.utf8@euro' }, common: true },
  { env: { LANG: 'es' }, common: true },
  { env: { LANG: 'it_IT' }, common: true },
  { env: { LANG: 'it_IT.ISO-8859-1' }, common: true },
  { env: { LANG: 'it_IT.iso88591' }, common: true },
  { env: { LANG: 'it_IT.latin1' }, common: true },
  { env: { LANG: 'it_IT.UTF-8' }, common: true },
  { env: { LANG: 'it_IT@euro' }, common: true },
  { env: { LANG: 'it_IT.' }, common: true },
  { env: { LANG: 'it' }, common: true },
  { env: { LANG: 'nl_NL.UTF-8' }, common: true },
  { env: { LANG: 'nl_NL.utf8' }, common: true },
  { env: { LANG: 'nl_NL' }, common: true },
  { env: { LC_ALL: 'xx_BROKEN' }, common: true },
  { env: { LANG: 'C', LC_TIME: 'xx_BROKEN' }, common: true },
  { env: { LANG: 'xx_BROKEN', LC_TIME: 'C.UTF-8' }, common: true },
  // Which variable wins, category by category.
  { env: { LANG: 'en_US.UTF-8', LC_ALL: 'xx_YY' }, common: true },
  { env: { LANG: 'xx_YY', LC_ALL: 'en_US.UTF-8' }, common: true },
  { env: { LANG: 'C.UTF-8', LC_CTYPE: 'xx_YY' }, common: true },
  { env: { LANG: 'C.UTF-8', LC_MESSAGES: 'xx_YY' }, common: true },
  { env: { LANG: 'xx_YY', LC_CTYPE: 'C.UTF-8', LC_MESSAGES: 'en_US.UTF-8' }, common: true },
  { env: { LANG: 'C.UTF-8', LC_TIME: 'xx_YY' }, common: true },
  { env: { LC_TIME: 'xx_YY' }, common: true },
  { env: { LANG: 'POSIX', LC_COLLATE: 'xx_YY.UTF-8' }, common: true },
  // LC_ALL alone fails: its message is translated where glibc has a catalog for LC_MESSAGES (or LANGUAGE).
  { env: { LANG: 'de_DE.ISO-8859-1', LC_TIME: 'xx_YY' } },
  { env: { LANG: 'it_IT', LC_NAME: 'xx_YY' } },
  { env: { LANG: 'german', LC_NAME: 'xx_YY' } },
  { env: { LANG: 'en_US.UTF-8', LC_TIME: 'xx_YY', LANGUAGE: 'de' } },
  { env: { LANG: 'en_US.UTF-8', LC_TIME: 'xx_YY', LANGUAGE: 'C:de' }, common: true },
  { env: { LANG: 'en_US.UTF-8', LC_TIME: 'xx_YY', LANGUAGE: ':' }, common: true },
  { env: { LANG: 'en_US.UTF-8', LC_TIME: 'xx_YY', LANGUAGE: 'en_US:en' }, common: true },
  { env: { LANG: 'en_US.UTF-8', LC_TIME: 'xx_YY' }, common: true },
  { env: { LANG: 'sr_RS@latin', LC_TIME: 'xx_YY' } },
  { env: { LANG: 'xx_YY', LC_MESSAGES: 'C' }, common: true },
  { env: { LANG: 'xx_YY', LC_ALL: 'C' }, common: true },
  { env: { LANG: 'en_US.UTF-8', LC_TIME: 'de_DE', LC_COLLATE: 'C.UTF-8', LC_PAPER: 'es_ES.utf8', LC_NUMERIC: 'german' }, common: true },
  { env: { LANG: 'en_US.UTF-8', LC_MONETARY: 'sr_RS@latin', LC_ADDRESS: 'xx_YY' }, common: true },
  { env: { LC_IDENTIFICATION: 'xx_YY' }, common: true },
  { env: { LC_MEASUREMENT: 'it_IT.UTF-8' }, common: true },
  { env: { LANG: 'C.UTF-8', LANGUAGE: 'de:en' }, common: true },
  { env: { LANG: 'xx_YY', LANGUAGE: 'de' }, common: true },
  // The alias file searched under a Turkish 8-bit LC_CTYPE (its tolower('I') is not 'i').
  { env: { LC_CTYPE: 'tr_TR', LANG: 'C.UTF-8' } },
  { env: { LC_CTYPE: 'tr_TR', LANG: 'german' } },
  { env: { LC_CTYPE: 'de_DE.ISO-8859-1', LANG: 'french' }, common: true },
  { env: { LC_CTYPE: 'C.UTF-8', LANG: 'POLISH' }, common: true },
  // Odd names: slashes, dots, lengths, separators, characters.
  { env: { LANG: '/usr/lib/locale/C.utf8' } },
  { env: { LANG: '/C.utf8' } },
  { env: { LANG: '../C.utf8' } },
  { env: { LANG: 'C.utf8/..' } },
  { env: { LANG: '/../C.utf8' } },
  { env: { LANG: 'en_US/../C.utf8' } },
  { env: { LANG: 'C.utf8/' } },
  { env: { LANG: '..' } },
  { env: { LANG: '.' } },
  { env: { LANG: '...' } },
  { env: { LANG: '.utf8' } },
  { env: { LANG: '_US' } },
  { env: { LANG: '@latin' } },
  { env: { LANG: 'en_US.@' } },
  { env: { LANG: 'en_.UTF-8' } },
  { env: { LANG: 'a'.repeat(255) } },
  { env: { LANG: 'a'.repeat(256) } },
  { env: { LANG: `en_US.UTF-8${'x'.repeat(300)}` } },
  { env: { LANG: `C.utf8@${'m'.repeat(250)}` } },
  { env: { LANG: 'C.UTF-8;LC_TIME=C' } },
  { env: { LANG: '"C.UTF-8"' } },
  { env: { LANG: 'C.UTF-8 ' } },
  { env: { LANG: 'en US' } },
  { env: { LANG: 'dé_DE.UTF-8' } },
  { env: { LANG: 'C.UTF-8\n' } },
  { env: { LANG: 'C.UTF-8', LOCPATH: '/usr/lib/locale' } },
  { env: { LANG: 'C.UTF-8', GCONV_PATH: '/nowhere' } },
];

/** A command in the rootfs, as the platform runs commands (PATH only). */
function runIn(root: string, script: string): void {
  const r = spawnSync('unshare', ['--uts', '--ipc', '--mount', '--pid', '--net', '--fork', 'chroot', root, 'sh', '-c', `umask 022 && ${script}`], {
    encoding: 'utf8',
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' },
  });
  assert.equal(r.status, 0, `${script}: ${r.stderr}`);
}

/** Compiles the locales of the table: some into the archive (with locale.alias, as locale-gen does), some into folders. */
function generateLocales(root: string): void {
  const intoArchive = [
    ['en_US', 'UTF-8', 'en_US.UTF-8'],
    ['de_DE', 'ISO-8859-1', 'de_DE.ISO-8859-1'],
    ['sr_RS@latin', 'UTF-8', 'sr_RS@latin'],
    ['tr_TR', 'ISO-8859-9', 'tr_TR'],
  ];
  const intoFolders = [
    ['es_ES', 'UTF-8', 'es_ES.UTF-8'],
    ['it_IT', 'ISO-8859-1', 'it_IT'],
    ['nl_NL', 'UTF-8', 'nl_NL.UTF-8'],
  ];
  runIn(
    root,
    [
      ...intoArchive.map(([input, charmap, name]) => `localedef -i ${input} -c -f ${charmap} -A /usr/share/locale/locale.alias ${name}`),
      ...intoFolders.map(([input, charmap, name]) => `localedef --no-archive -i ${input} -c -f ${charmap} ${name}`),
    ].join(' && '),
  );
  const dir = join(root, 'usr/lib/locale');
  // localedef names folders with the normalized codeset; one keeps the name as written.
  renameSync(join(dir, 'nl_NL.utf8'), join(dir, 'nl_NL.UTF-8'));
  cpSync(join(dir, 'es_ES.utf8'), join(dir, 'xx_BROKEN'), { recursive: true });
  rmSync(join(dir, 'xx_BROKEN/LC_TIME'));
}

interface Tally {
  compared: number;
  unknown: Array<{ env: string; reason: string }>;
}

/** Lets kiln read the archive this test makes (6 MB), which by default it leaves to the command. */
const READ_EVERYTHING = 64 * 1024 * 1024;

/** Every environment: kiln's answer equals the real `locale charmap` (Cannot set or not), or is 'unknown'. */
async function compareAll(root: string, scenario: string, mustAnswer: (entry: { env: Record<string, string>; common?: true }) => boolean, readBudgetBytes?: number): Promise<Tally> {
  const { platform } = moduleContext(root);
  const tally: Tally = { compared: 0, unknown: [] };
  for (const entry of ENVIRONMENTS) {
    const env: Record<string, string> = Object.fromEntries(LOCALE_VARIABLES.map((v) => [v, '']));
    Object.assign(env, entry.env);
    let why = '';
    const ours = await localeSettingsVerdict(platform, env, { onUnknown: (reason) => (why = reason), readBudgetBytes });
    const real = await platform.run(['locale', 'charmap'], { env, allowFailure: true });
    const refused = `${real.stdout}${real.stderr}`.includes('Cannot set');
    const what = `${scenario}: ${JSON.stringify(entry.env)} -> real ${JSON.stringify(real.stdout + real.stderr)}, kiln ${ours} ${why}`;
    tally.compared++;
    if (ours === 'unknown') {
      tally.unknown.push({ env: JSON.stringify(entry.env), reason: why });
      assert.ok(!mustAnswer(entry), `kiln cannot answer a common case: ${what}`);
      continue;
    }
    assert.equal(ours === 'cannot-set', refused, what);
  }
  return tally;
}

/** The counts, and the environments kiln left to the command grouped by why. */
function report(t: { diagnostic(message: string): void }, scenario: string, tally: Tally): void {
  t.diagnostic(`${scenario}: ${tally.compared} environments compared, ${tally.unknown.length} unknown`);
  const byReason = new Map<string, string[]>();
  for (const { env, reason } of tally.unknown) byReason.set(reason, [...(byReason.get(reason) ?? []), env]);
  for (const [reason, envs] of byReason) t.diagnostic(`  unknown (${reason}): ${envs.slice(0, 3).join(' ')}${envs.length > 3 ? ` and ${envs.length - 3} more` : ''}`);
}

test('kiln answers as the real `locale charmap` does, with locales in the archive and in folders, and without an archive', async (t) => {
  if (!need(t, canRun(), WHY)) return;
  const root = copyRootfs(tempDir(t, 'kiln-glibc-locale-'));
  generateLocales(root);
  const archive = join(root, 'usr/lib/locale/locale-archive');

  // Every name in the archive localedef wrote sits under the hash kiln computes.
  const bytes = readFileSync(archive);
  const [namehashOffset, , namehashSize] = [bytes.readUInt32LE(8), bytes.readUInt32LE(12), bytes.readUInt32LE(16)];
  let names = 0;
  for (let i = 0; i < namehashSize; i++) {
    const entry = namehashOffset + i * 12;
    const nameOffset = bytes.readUInt32LE(entry + 4);
    if (nameOffset === 0) continue;
    const name = bytes.subarray(nameOffset, bytes.indexOf(0, nameOffset));
    assert.equal(localeArchiveHash(name), bytes.readUInt32LE(entry), name.toString());
    names++;
  }
  assert.ok(names >= 8, `${names} names in the archive`);

  report(t, 'archive and folders', await compareAll(root, 'archive and folders', (e) => e.common === true, READ_EVERYTHING));
  // Within the default budget the archive is left to the command, but the built-in names are answered.
  const builtin = (e: { env: Record<string, string> }): boolean => Object.keys(e.env).every((k) => LOCALE_VARIABLES.includes(k)) && Object.values(e.env).every((v) => ['', 'C', 'POSIX'].includes(v));
  report(t, 'archive and folders, default budget', await compareAll(root, 'archive and folders, default budget', builtin));

  renameSync(archive, `${archive}.away`);
  report(t, 'no archive', await compareAll(root, 'no archive', (e) => e.common === true, READ_EVERYTHING));

  renameSync(`${archive}.away`, archive);
  rmSync(join(root, 'etc/locale.alias'));
  report(t, 'archive, no alias file', await compareAll(root, 'archive, no alias file', (e) => e.common === true, READ_EVERYTHING));

  // An archive glibc cannot use: kiln still answers for the built-in names.
  writeFileSync(archive, 'stale');
  report(t, 'corrupt archive', await compareAll(root, 'corrupt archive', builtin, READ_EVERYTHING));
});

test('the bookworm rootfs as debootstrap left it: no archive, C.utf8 in a folder', async (t) => {
  if (!need(t, canRun(), WHY)) return;
  const root = copyRootfs(tempDir(t, 'kiln-glibc-locale-'));

  // Every name in the gconv module cache iconvconfig wrote is found where kiln's hash leads (gconv_cache.c probing).
  const triplet = readdirSync(join(root, 'usr/lib')).find((d) => d.includes('-linux-gnu') && existsSync(join(root, 'usr/lib', d, 'libc.so.6'))) as string;
  const cache = readFileSync(join(root, 'usr/lib', triplet, 'gconv/gconv-modules.cache'));
  const [stringOffset, hashOffset, hashSize] = [cache.readUInt16LE(4), cache.readUInt16LE(6), cache.readUInt16LE(8)];
  let found = 0;
  for (let slot = 0; slot < hashSize; slot++) {
    const at = cache.readUInt16LE(hashOffset + slot * 4);
    if (at === 0) continue;
    const name = cache.toString('latin1', stringOffset + at, cache.indexOf(0, stringOffset + at));
    const hval = gconvCacheHash(name);
    let idx = hval % hashSize;
    for (let probes = 0; idx !== slot; probes++) {
      assert.ok(probes < hashSize && cache.readUInt16LE(hashOffset + idx * 4) !== 0, `${name} is not where its hash leads`);
      idx = (idx + 1 + (hval % (hashSize - 2))) % hashSize;
    }
    found++;
  }
  assert.ok(found > 1000, `${found} names in the gconv cache`);

  report(t, 'bare rootfs', await compareAll(root, 'bare rootfs', (e) => e.common === true));
});

test('a target that is not glibc 2.36 as kiln knows it gets no answer', async (t) => {
  if (!need(t, canRun(), WHY)) return;
  const root = copyRootfs(tempDir(t, 'kiln-glibc-locale-'));
  const { platform } = moduleContext(root);
  const env = { LANG: 'C.UTF-8' };
  assert.equal(await localeSettingsVerdict(platform, env), 'ok');
  writeFileSync(join(root, 'usr/local/bin/locale'), '#!/bin/sh\n');
  assert.equal(await localeSettingsVerdict(platform, env), 'unknown');
  rmSync(join(root, 'usr/local/bin/locale'));
  assert.equal(await localeSettingsVerdict(platform, env), 'ok');
  // Another glibc's `locale` (libc-bin and libc6 come from one source version).
  const program = join(root, 'usr/bin/locale');
  const image = readFileSync(program);
  writeFileSync(program, Buffer.from(image.toString('latin1').replace('(Debian GLIBC 2.36-', '(Debian GLIBC 2.37-'), 'latin1'));
  assert.equal(await localeSettingsVerdict(platform, env), 'unknown');
  writeFileSync(program, image);
  assert.equal(await localeSettingsVerdict(platform, env), 'ok');
  // A second C library (another architecture's): which one `locale` loads is not followed.
  const triplet = readdirSync(join(root, 'usr/lib')).find((d) => d.includes('-linux-gnu') && existsSync(join(root, 'usr/lib', d, 'libc.so.6'))) as string;
  mkdirSync(join(root, 'usr/lib/other-linux-gnu'));
  cpSync(join(root, 'usr/lib', triplet, 'libc.so.6'), join(root, 'usr/lib/other-linux-gnu/libc.so.6'));
  assert.equal(await localeSettingsVerdict(platform, env), 'unknown');
});

test('codeset normalisation as _nl_normalize_codeset', () => {
  assert.equal(normalizeCodeset('UTF-8'), 'utf8');
  assert.equal(normalizeCodeset('utf8'), 'utf8');
  assert.equal(normalizeCodeset('ISO-8859-1'), 'iso88591');
  assert.equal(normalizeCodeset('ISO_8859-15'), 'iso885915');
  assert.equal(normalizeCodeset('8859-1'), 'iso88591');
  assert.equal(normalizeCodeset('eucJP'), 'eucjp');
  assert.equal(normalizeCodeset('KOI8-R'), 'koi8r');
  assert.equal(normalizeCodeset('-'), 'iso');
  assert.equal(normalizeCodeset(''), 'iso');
  assert.equal(archiveLookupName('en_US.UTF-8'), 'en_US.utf8');
  assert.equal(archiveLookupName('sr_RS.UTF-8@latin'), 'sr_RS.utf8@latin');
  assert.equal(archiveLookupName('sr_RS@latin'), 'sr_RS@latin');
  assert.equal(archiveLookupName('en_US.'), 'en_US.');
  assert.equal(archiveLookupName('en_US.@x'), 'en_US.@x');
});

test('the locale-archive hash (hashval.h) and the gconv cache hash (hashpjw), on values from real files', () => {
  // Stored by localedef 2.36 in a locale-archive (x86_64).
  const known: Array<[string, number]> = [
    ['en_US.utf8', 0x67e59d4b],
    ['de_DE.iso88591', 0xfab2d6e3],
    ['sr_RS@latin', 0xeb7d38b3],
    ['sr_RS.utf8@latin', 0x5cb8a999],
    ['tr_TR', 0x917d4f95],
    ['german', 0x9341a8c1],
  ];
  for (const [name, hash] of known) assert.equal(localeArchiveHash(Buffer.from(name)), hash, name);
  assert.equal(localeArchiveHash(Buffer.alloc(0)), 0xffffffff);
  // hashpjw; longer names fold their top nibble back (the test on the rootfs checks every name of a real cache).
  assert.equal(gconvCacheHash(''), 0);
  assert.equal(gconvCacheHash('A'), 0x41);
  assert.equal(gconvCacheHash('UTF-8//'), 0x0a890b4f);
  assert.equal(gconvCacheHash('ISO-8859-1//'), 0x0f6424af);
  assert.equal(gconvCacheHash('ISO-10646/UTF8/'), 0x0b4efe5f);
  assert.equal(gconvCharsetKey('UTF-8'), 'UTF-8//');
  assert.equal(gconvCharsetKey('utf8'), 'UTF8//');
  assert.equal(gconvCharsetKey('iso-8859-1/x/y/z'), 'ISO-8859-1/X/Y');
  assert.equal(gconvCharsetKey('a b+c'), 'ABC//');
});

test('the folders tried for a name, in glibc order', () => {
  assert.deepEqual(localeDirectoryVariants('C.UTF-8'), { variants: ['C.UTF-8', 'C.utf8', 'C'], codeset: 'UTF-8' });
  assert.deepEqual(localeDirectoryVariants('C.utf8'), { variants: ['C.utf8', 'C'], codeset: 'utf8' });
  assert.deepEqual(localeDirectoryVariants('de_DE.ISO-8859-1@euro'), {
    variants: ['de_DE.ISO-8859-1@euro', 'de_DE.iso88591@euro', 'de_DE@euro', 'de.ISO-8859-1@euro', 'de.iso88591@euro', 'de@euro', 'de_DE.ISO-8859-1', 'de_DE.iso88591', 'de_DE', 'de.ISO-8859-1', 'de.iso88591', 'de'],
    codeset: 'ISO-8859-1',
  });
  assert.deepEqual(localeDirectoryVariants('sr_RS@latin'), { variants: ['sr_RS@latin', 'sr@latin', 'sr_RS', 'sr'], codeset: undefined });
  assert.deepEqual(localeDirectoryVariants('en_US.'), { variants: ['en_US', 'en'], codeset: '' });
  assert.deepEqual(localeDirectoryVariants('_US.UTF-8'), { variants: ['_US.UTF-8'], codeset: undefined });
  assert.deepEqual(localeDirectoryVariants('en'), { variants: ['en'], codeset: undefined });
});

test('locale.alias read as localealias.c reads it', () => {
  const text = ['# comment', '  german\tde_DE.ISO-8859-1 trailing words', 'French fr_FR.ISO-8859-1', 'lonely', '', `long${'x'.repeat(500)} never`, 'after ok', 'dup a', 'DUP b', 'last value'].join('\n');
  const aliases = parseLocaleAliases(Buffer.from(text));
  assert.deepEqual(aliases.get('german'), ['de_DE.ISO-8859-1']);
  assert.deepEqual(aliases.get('french'), ['fr_FR.ISO-8859-1']);
  assert.equal(aliases.get('lonely'), undefined);
  assert.deepEqual(aliases.get('after'), ['ok']);
  assert.deepEqual(aliases.get('dup'), ['a', 'b']);
  assert.deepEqual(aliases.get('last'), ['value']);
  // A line longer than fgets' buffer: its first 399 bytes are one word (no value), the rest is skipped.
  assert.equal([...aliases.keys()].some((k) => k.startsWith('long')), false);
});
