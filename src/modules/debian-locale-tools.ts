// Debian's locale-gen and update-locale (package `locales`), done in-process where the installed scripts are
// ones kiln follows line by line (known by their SHA-256); anywhere else the scripts themselves run.
//
// Both are small scripts whose cost is their interpreters: locale-gen is /bin/sh reading /etc/locale.gen one
// byte per read(2) (about 10 ms before it generates anything), update-locale is Perl checking the new
// settings through `sh -c 'locale charmap'` (about 15 ms). In-process, what is left is the real work: one
// localedef per enabled locale, with the same arguments, environment, output, exit codes and file contents as
// the scripts; the `locale charmap` check is answered from the locale files where kiln follows the target's
// glibc, and run as a command elsewhere.
import { createHash } from 'node:crypto';
import { DryRunPlatform } from '../platform/dry-run-platform';
import type { Platform, RunResult } from '../platform/platform';
import { localeSettingsVerdict } from './glibc-locale-lookup';

/** The PATH that platform.run gives commands, searched the same way to find which script would run. */
const COMMAND_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** Debian bookworm's locales 2.36 scripts, the versions followed below. */
export const KNOWN_LOCALE_GEN = new Set(['e968c39cf3a7c3804da4d2eb3de1e83b91f24e54576d31f7f3fb981ce57b70b1']);
export const KNOWN_UPDATE_LOCALE = new Set(['535b9cbaf2aa4deb83d82810579986370f5ad1193eafc594061f9cf2cf1b82c9']);

/** Whether the NAME that PATH finds in the root is one of the scripts with KNOWN digests. */
export async function isKnownScript(platform: Platform, name: string, known: ReadonlySet<string>): Promise<boolean> {
  for (const dir of COMMAND_PATH) {
    const path = `${dir}/${name}`;
    if (!(await platform.exists(path))) continue;
    return known.has(createHash('sha256').update(await platform.readFile(path)).digest('hex'));
  }
  return false;
}

/** `read -r locale charset` on one line: the first word, and the rest with outer blanks trimmed. */
function readTwoFields(line: string): [string, string] {
  const trimmed = line.replace(/^[ \t\n]+/, '');
  const m = /^(\S*)[ \t]*(.*?)[ \t]*$/.exec(trimmed);
  return [m?.[1] ?? '', m?.[2] ?? ''];
}

/**
 * locale-gen, as bookworm's script runs with any argument but --keep-existing (cloud-init passes the locale,
 * which the script ignores): nothing when /etc/locale.gen is missing or empty; else the locale archive is
 * removed and every enabled line of /etc/locale.gen goes to localedef.
 */
export async function runDebianLocaleGen(platform: Platform): Promise<RunResult> {
  const list = await platform.readTextIfExists('/etc/locale.gen');
  if (list === undefined || list.length === 0) return { code: 0, stdout: '', stderr: '' };
  await platform.remove('/usr/lib/locale/locale-archive', { recursive: true });
  let stdout = 'Generating locales (this might take a while)...\n';
  let stderr = '';
  // `while read` stops at a last line that has no newline, unread.
  for (const line of list.split('\n').slice(0, -1)) {
    const [locale, charset] = readTwoFields(line);
    if (locale === '' || locale.startsWith('#')) continue;
    if (charset === '') {
      stdout += `error: Bad entry '${locale} ${charset}'\n`;
      continue;
    }
    let base = locale.split('.')[0] as string;
    base = base.split('@')[0] as string;
    const at = locale.includes('@') ? `@${locale.slice(locale.indexOf('@') + 1)}` : '';
    stdout += `  ${base}.${charset}${at}...`;
    let input: string;
    if (await platform.exists(`/usr/local/share/i18n/locales/${locale}`)) input = `/usr/local/share/i18n/locales/${locale}`;
    else if (await platform.exists(`/usr/share/i18n/locales/${locale}`)) input = locale;
    else input = (await platform.exists(`/usr/local/share/i18n/locales/${base}${at}`)) ? `/usr/local/share/i18n/locales/${base}${at}` : `${base}${at}`;
    // The script runs localedef under umask 022 and with `|| :`: a failure is shown, not fatal.
    const localedef = ['localedef', '-i', input, '-c', '-f', charset, '-A', '/usr/share/locale/locale.alias', locale];
    const r = await platform.run(['sh', '-c', 'umask 022 && exec "$@"', 'sh', ...localedef], { allowFailure: true });
    stdout += `${r.stdout} done\n`;
    stderr += r.stderr;
  }
  stdout += 'Generation complete.\n';
  return { code: 0, stdout, stderr };
}

/**
 * Whether the script's `locale charmap` check would print "Cannot set": answered from the locale files where kiln
 * follows the target's glibc (src/modules/glibc-locale-lookup.ts), else by running the command.
 */
async function refusesLocaleSettings(platform: Platform, checkEnv: Record<string, string>): Promise<boolean> {
  // A dry run plans the command as before: its view of the files lacks what the planned localedef runs would make.
  const verdict = platform instanceof DryRunPlatform ? 'unknown' : await localeSettingsVerdict(platform, checkEnv);
  if (verdict !== 'unknown') return verdict === 'cannot-set';
  const check = await platform.run(['locale', 'charmap'], { env: checkEnv, allowFailure: true });
  return `${check.stdout}${check.stderr}`.includes('Cannot set');
}

const LOCALE_VARIABLES = ['LANG', 'LC_CTYPE', 'LC_NUMERIC', 'LC_TIME', 'LC_COLLATE', 'LC_MONETARY', 'LC_MESSAGES', 'LC_PAPER', 'LC_NAME', 'LC_ADDRESS', 'LC_TELEPHONE', 'LC_MEASUREMENT', 'LC_IDENTIFICATION', 'LC_ALL'];

/**
 * `update-locale --locale-file=FILE KEY=VALUE …`, as bookworm's script: the file's assignments are kept
 * commented out and re-enabled (or appended) for the variables given; the settings are checked as
 * `locale charmap` would first, and an unusable locale is refused with the script's message and exit code (Perl's
 * die: 255, errno being clear there). The file keeps its mode (0644 when new).
 */
export async function runDebianUpdateLocale(platform: Platform, file: string, settings: Array<[string, string]>): Promise<RunResult> {
  const current = await platform.readTextIfExists(file);
  const values = new Map<string, string>();
  let content: string;
  let mode = 0o644;
  if (current !== undefined) {
    mode = (await platform.stat?.(file))?.mode ?? 0o644;
    for (const line of current.split(/(?<=\n)/)) {
      const m = /^(\w+)=(.*)/.exec(line);
      if (m) values.set(m[1] as string, m[2] as string);
    }
    content = current.replace(/^(\s*\w+=)/gm, '#$1');
    if (!content.endsWith('\n')) content += '\n';
  } else {
    content = '#  File generated by update-locale\n';
  }
  for (const [key, value] of settings) values.set(key, value);
  let env = '';
  for (const [key, value] of values) {
    env += ` ${key}=${value}`;
    const commented = new RegExp(`^#\\s*${key}=.*$`, 'm');
    if (commented.test(content)) content = content.replace(commented, () => `${key}=${value}`);
    else content += `${key}=${value}\n`;
  }
  const checkEnv: Record<string, string> = Object.fromEntries(LOCALE_VARIABLES.map((v) => [v, '']));
  for (const [key, value] of values) checkEnv[key] = value;
  if (await refusesLocaleSettings(platform, checkEnv)) return { code: 255, stdout: '', stderr: `*** update-locale: Error: invalid locale settings: ${env}\n` };
  let stdout = '';
  const language = values.get('LANGUAGE');
  if (language !== undefined) {
    const wanted = language.replace(/["']/g, '').replace(/[.:_].*/s, '');
    let variable = '';
    let messages = '';
    for (const v of ['LANG', 'LC_MESSAGES', 'LC_ALL']) {
      const set = values.get(v);
      if (set !== undefined) [variable, messages] = [v, set];
    }
    messages = messages.replace(/["']/g, '');
    if (!messages.startsWith(wanted) && variable !== '' && messages !== 'C' && messages !== 'POSIX' && wanted !== 'C' && wanted !== 'POSIX') {
      stdout += `*** update-locale: Warning: LANGUAGE (${language}) is not compatible with ${variable} (${messages}). Disabling it.\n`;
      content = content.replace(/^(\s*LANGUAGE=)/gm, '#$1');
    }
  }
  await platform.writeFile(file, content, { mode });
  return { code: 0, stdout, stderr: '' };
}
