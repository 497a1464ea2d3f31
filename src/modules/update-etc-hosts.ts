// cc_update_etc_hosts: manage_etc_hosts true/template renders /etc/hosts from the family template; 'localhost' edits
// only the local line.
import { posix } from 'node:path';
import { builtinHostsTemplate } from './support/builtin-templates';
import { makeHeader } from './support/cloud-header';
import type { CloudConfigValue } from '../config/schema/cloud-config-types';
import { configModule } from './support/config-module';
import { readConfigValue } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { isTrue } from './support/config-values';
import { HOSTNAME_READERS, hostnameAndFqdn } from './support/hostname-facts';
import { type Module, ModuleError } from './module';
import { renderTemplateText, templatesDirSetting } from './support/cloud-template';
import { describeError } from '../util/errors';

const HOSTS = '/etc/hosts';

type HostsLine = { kind: 'text'; line: string } | { kind: 'option'; pieces: string[]; tail: string };

export function parseHosts(text: string): HostsLine[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line): HostsLine => {
    const t = line.trim();
    if (!t) return { kind: 'text', line };
    const hash = t.indexOf('#');
    const head = hash < 0 ? t : t.slice(0, hash);
    if (!head.length) return { kind: 'text', line };
    return { kind: 'option', pieces: head.split(/\s+/).filter(Boolean), tail: hash < 0 ? '' : t.slice(hash) };
  });
}

export function renderHosts(lines: HostsLine[]): string {
  return lines.map((l) => (l.kind === 'text' ? `${l.line}\n` : `${l.pieces.join('\t')}${l.tail}\n`)).join('');
}

/** distro.update_etc_hosts: make sure the local address line names FQDN and HOSTNAME, keeping everything else. */
export function updateLocalhostEntry(
  text: string | undefined,
  localIp: string,
  hostname: string,
  fqdn: string,
  header: string,
): string | undefined {
  let lines = parseHosts(text ?? '');
  const prev = lines
    .filter((l): l is Extract<HostsLine, { kind: 'option' }> => l.kind === 'option' && l.pieces[0] === localIp)
    .map((l) => l.pieces.slice(1));
  if (prev.length === 0) {
    lines.push({ kind: 'option', pieces: [localIp, fqdn, hostname], tail: '' });
  } else {
    const present = prev.some((e) => e[0] === fqdn && e.slice(1).includes(hostname));
    if (present) return undefined;
    const entries = [...prev, [fqdn, hostname]];
    lines = lines.filter((l) => l.kind !== 'option' || (l.pieces.length > 0 && l.pieces[0] !== localIp));
    for (const e of entries) if (e.length >= 1) lines.push({ kind: 'option', pieces: [localIp, ...e], tail: '' });
  }
  // cloud-init writes the rendered lines and then one more newline.
  return `${text === undefined ? `${header}\n` : ''}${renderHosts(lines)}\n`;
}

/**
 * manage_etc_hosts as cc_update_etc_hosts reads it: its str() (get_cfg_option_str), true when translate_bool says so
 * (with the word 'template', kept as such), 'localhost' as it is, anything else (an unknown word, null) false: the
 * module then only says it does not manage the file, as upstream's does.
 */
function manageEtcHostsSetting(value: unknown): CloudConfigValue<'manage_etc_hosts'> {
  const text = readConfigValue('str', value) as string;
  if (isTrue(text, ['template'])) return text === 'template' ? 'template' : true;
  return text === 'localhost' ? 'localhost' : false;
}

export const updateEtcHosts: Module = configModule({
  name: 'update_etc_hosts',
  stage: 'init',
  frequency: 'always',
  distros: 'all',
  activateBy: ['manage_etc_hosts'],
  configKeys: { manage_etc_hosts: manageEtcHostsSetting, system_info: templatesDirSetting, ...HOSTNAME_READERS },
  async run(ctx, cfg): Promise<void> {
    const manage = cfg.manage_etc_hosts ?? false;
    if (manage === true || manage === 'template') {
      if (manage === 'template')
        ctx.log.deprecated(
          "Value 'template' for key 'manage_etc_hosts' is deprecated in 22.2 and scheduled to be removed in 27.2. Use 'true' instead.",
        );
      const { hostname, fqdn } = await hostnameAndFqdn(ctx, cfg);
      if (!hostname) {
        ctx.log.warn("Option 'manage_etc_hosts' was set, but no hostname was found");
        return;
      }
      const family = ctx.distro.family === 'unknown' ? 'debian' : ctx.distro.family;
      const tplFile = posix.join(templatesDir(cfg.system_info), `hosts.${family}.tmpl`);
      const tpl = (await ctx.platform.readTextIfExists(tplFile)) ?? builtinHostsTemplate(family);
      if (tpl === undefined)
        throw new ModuleError(
          'update_etc_hosts',
          `manage_etc_hosts: no hosts template could be found for distro ${family} (${tplFile})`,
        );
      // The full jinja renderer, as cloud-init's templater: an image's own template may use any statement.
      let rendered: string;
      try {
        rendered = renderTemplateText(tpl, { hostname, fqdn });
      } catch (err) {
        throw new ModuleError('update_etc_hosts', `${tplFile}: ${describeError(err)}`, { cause: err });
      }
      await ctx.platform.writeFile(HOSTS, rendered, { mode: 0o644 });
    } else if (manage === 'localhost') {
      const { hostname, fqdn } = await hostnameAndFqdn(ctx, cfg);
      if (!hostname) {
        ctx.log.warn("Option 'manage_etc_hosts' was set, but no hostname was found");
        return;
      }
      ctx.log.debug(`Managing localhost in ${HOSTS}`);
      // cloud-init's _get_localhost_ip: 127.0.1.1 on Debian, Alpine and SUSE, 127.0.0.1 elsewhere.
      const localIp = ['debian', 'alpine', 'suse'].includes(ctx.distro.family) ? '127.0.1.1' : '127.0.0.1';
      const next = updateLocalhostEntry(
        await ctx.platform.readTextIfExists(HOSTS),
        localIp,
        hostname,
        fqdn,
        makeHeader(new Date(), 'added'),
      );
      if (next !== undefined) await ctx.platform.writeFile(HOSTS, next, { mode: 0o644 });
    } else {
      ctx.log.debug(
        `Configuration option 'manage_etc_hosts' is not set, not managing ${HOSTS} in module update_etc_hosts`,
      );
    }
  },
});

/** system_info.paths.templates_dir, the folder of the hosts templates, else cloud-init's default. */
function templatesDir(systemInfo: CloudConfigValue<'system_info'> | undefined): string {
  const paths = systemInfo?.paths;
  const dir = isRecord(paths) ? paths.templates_dir : undefined;
  return typeof dir === 'string' && dir ? dir : '/etc/cloud/templates/';
}
