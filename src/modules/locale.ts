// cc_locale: sets the system locale (Debian: the distro's locale-gen and update-locale, as cloud-init runs them;
// RHEL/SUSE: locale files; Arch; Alpine).
import { CommandError } from '../util/command-error';
import { loadShellContent } from '../util/shell-content';
import { isFalse } from './support/config-values';
import { configModule } from './support/config-module';
import { usesSystemd } from './support/distro-facts';
import type { Module, ModuleContext } from './module';
import { makeHeader } from './support/cloud-header';
import { updateSysconfigFile } from './support/sysconfig-file';

export const DEBIAN_LOCALE_FILE = '/etc/default/locale';

/** KEY of a shell-variable file read as cloud-init's load_shell_content reads it, '' when absent or empty. */
export function readShellVar(text: string | undefined, key: string, source = DEBIAN_LOCALE_FILE): string {
  return text === undefined ? '' : (loadShellContent(text, source)[key] ?? '');
}

/** The distro's default locale: C.UTF-8 on Debian (25.1; 22.4's was en_US.UTF-8, which needs locale-gen) and Alpine. */
function defaultLocale(family: string): string {
  return family === 'alpine' || family === 'debian' ? 'C.UTF-8' : 'en_US.UTF-8';
}

/**
 * ARGV run as cloud-init runs it with capture=False: its output goes to the console (the module's output), not
 * into the error, and a failure fails the module.
 */
async function runUncaptured(ctx: ModuleContext, argv: string[]): Promise<void> {
  const r = await ctx.platform.run(argv, { allowFailure: true });
  if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
  if (r.code !== 0)
    throw new CommandError(`command '${argv.join(' ')}' exited with code ${r.code}`, { argv, code: r.code });
}

/**
 * cloud-init's Debian apply_locale (22.4's and 25.1's decide alike): the system locale is LANG in /etc/default/locale
 * whatever OUTFILE is; when it differs from LOCALE, is unset, or OUTFILE is missing, `locale-gen LOCALE` (not for C,
 * C.UTF-8 and POSIX, which need none) and then `update-locale --locale-file=OUTFILE LANG=LOCALE`. Both are the target's
 * own programs, run in its root.
 */
async function applyDebianLocale(ctx: ModuleContext, locale: string, outFile: string): Promise<void> {
  const { platform } = ctx;
  const systemLocale = readShellVar(await platform.readTextIfExists(DEBIAN_LOCALE_FILE), 'LANG');
  const distroLocale = systemLocale || defaultLocale('debian');
  const confExists = await platform.exists(outFile);
  if (locale.toLowerCase() === distroLocale.toLowerCase() && confExists && systemLocale) {
    ctx.log.debug(`System has 'LANG=${systemLocale}' requested '${locale}', skipping regeneration.`);
    return;
  }
  if (['c', 'c.utf-8', 'posix'].includes(locale.toLowerCase()))
    ctx.log.debug(`LANG=${locale} does not require rengeneration`);
  else {
    ctx.log.debug(`Generating locales for ${locale}`);
    await runUncaptured(ctx, ['locale-gen', locale]);
  }
  ctx.log.debug(`Updating ${outFile} with locale setting LANG=${locale}`);
  await runUncaptured(ctx, ['update-locale', `--locale-file=${outFile}`, `LANG=${locale}`]);
}

export async function applyLocale(ctx: ModuleContext, locale: string, configFile: string | undefined): Promise<void> {
  const { platform } = ctx;
  switch (ctx.distro.family) {
    case 'redhat': {
      const systemd = await usesSystemd(platform);
      const file = systemd ? '/etc/locale.conf' : (configFile ?? '/etc/sysconfig/i18n');
      await updateSysconfigFile(platform, file, { LANG: locale }, makeHeader());
      return;
    }
    case 'suse': {
      const systemd = await usesSystemd(platform);
      const file = configFile ?? (systemd ? '/etc/locale.conf' : '/etc/sysconfig/language');
      await updateSysconfigFile(platform, file, systemd ? { LANG: locale } : { RC_LANG: locale }, makeHeader());
      return;
    }
    case 'arch': {
      if (configFile !== undefined && configFile !== '/etc/locale.conf') {
        ctx.log.warn(`Invalid locale_configfile ${configFile}, only supported value is /etc/locale.conf`);
      }
      await platform.writeFile('/etc/locale.gen', [makeHeader(), `${locale} UTF-8`, ''].join('\n'));
      await platform.run(['locale-gen']);
      await platform.run(['localectl', 'set-locale', `LANG=${locale}`]);
      return;
    }
    case 'alpine': {
      const lines = [
        '#',
        '# This file is created by cloud-init once per new instance boot',
        '#',
        'export CHARSET=UTF-8',
        `export LANG=${locale}`,
        'export LC_COLLATE=C',
        '',
      ];
      await platform.writeFile(configFile ?? '/etc/profile.d/locale.sh', lines.join('\n'), { mode: 0o644 });
      return;
    }
    default:
      await applyDebianLocale(ctx, locale, configFile ?? DEBIAN_LOCALE_FILE);
  }
}

export const localeModule: Module = configModule({
  name: 'locale',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  configKeys: { locale: 'str', locale_configfile: 'str' },
  async run(ctx, cfg): Promise<void> {
    // get_cfg_option_str: a boolean is Python's str() of it ('False' turns the module off).
    let locale = cfg.locale;
    if (locale === undefined) {
      if (ctx.distro.family === 'debian' || ctx.distro.family === 'unknown') {
        const current = readShellVar(await ctx.platform.readTextIfExists(DEBIAN_LOCALE_FILE), 'LANG');
        locale = current || defaultLocale('debian');
      } else locale = defaultLocale(ctx.distro.family);
    }
    if (isFalse(cfg.locale === undefined ? locale : cfg.locale)) {
      ctx.log.debug(`Skipping module named locale, disabled by config: ${locale}`);
      return;
    }
    ctx.log.debug(`Setting locale to ${locale}`);
    await applyLocale(ctx, locale, cfg.locale_configfile);
  },
});
