// cc_resolv_conf: with manage_resolv_conf, writes /etc/resolv.conf from resolv_conf (nameservers, search, domain,
// sortlist, options).
import { posix } from 'node:path';
import { pyStr } from '../util/python-str';
import type { CloudConfigValue } from '../config/schema/cloud-config-types';
import type { Module, ModuleContext } from './module';
import { configModule } from './support/config-module';

const TARGET = '/etc/resolv.conf';
/** Distro.resolve_conf_fn where it is systemd-resolved's file (25.1's photon, mariner and azurelinux classes). */
const RESOLVED_TARGET = '/etc/systemd/resolved.conf';
const RESOLVED_DISTROS = ['photon', 'mariner', 'azurelinux'];
const KILN_HEADER = [
  '# This file was written from cloud-config (manage_resolv_conf: true).',
  '# It is written once per instance; edit the cloud-config to change it.',
  '#',
];

/** The comment lines at the top of the target's resolv.conf.tmpl (its own words), or kiln's when there is none. */
async function headerLines(ctx: ModuleContext, tplFile: string): Promise<string[]> {
  const tpl = await ctx.platform.readTextIfExists(tplFile);
  if (tpl === undefined) return KILN_HEADER;
  const lines = tpl.split('\n');
  if (/^##\s*template:/i.test(lines[0] ?? '')) lines.shift();
  const head: string[] = [];
  for (const l of lines) {
    if (!l.startsWith('#') || l.startsWith('{#')) break;
    head.push(l);
  }
  return head;
}

/** The text cloud-init's resolv.conf template produces for PARAMS (same lines, spacing and blank lines). */
export function renderResolvConf(header: string[], params: CloudConfigValue<'resolv_conf'>): string {
  let out = header.map((l) => `${l}\n`).join('');
  if (params.nameservers) {
    for (const s of params.nameservers) out += `nameserver ${pyStr(s)}\n`;
    out += '\n';
  }
  if (params.searchdomains) out += `search ${params.searchdomains.map((s) => `${pyStr(s)} `).join('')}\n`;
  if (params.domain !== undefined) out += `domain ${params.domain}\n`;
  if (params.sortlist) out += `\nsortlist ${params.sortlist.map((s) => `${pyStr(s)} `).join('')}`;
  const flags: string[] = [];
  const options: Array<[string, unknown]> = [];
  if (params.options) {
    for (const [k, v] of Object.entries(params.options)) {
      if (typeof v === 'boolean') {
        if (v) flags.push(k);
      } else options.push([k, v]);
    }
  }
  options.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (flags.length > 0 || options.length > 0)
    out += `\noptions${flags.map((f) => ` ${f}`).join('')}${options.map(([k, v]) => ` ${k}:${pyStr(v)}`).join('')}`;
  return `${out}\n`;
}

/** The text cloud-init's systemd.resolved.conf template produces for PARAMS: only nameservers and searchdomains. */
export function renderResolvedConf(header: string[], params: CloudConfigValue<'resolv_conf'>): string {
  let out = `${header.map((l) => `${l}\n`).join('')}[Resolve]\nLLMNR=false\n`;
  if (params.nameservers) out += `DNS=${params.nameservers.map((s) => `${pyStr(s)} `).join('')}`;
  out += '\n';
  if (params.searchdomains) out += `Domains=${params.searchdomains.map((s) => `${pyStr(s)} `).join('')}`;
  return `${out}\n`;
}

export const resolvConf: Module = configModule({
  name: 'resolv_conf',
  stage: 'init',
  frequency: 'once-per-instance',
  // 25.1's list (kiln names every openSUSE release 'opensuse'; the other names are kept as upstream's).
  distros: [
    'alpine',
    'azurelinux',
    'fedora',
    'mariner',
    'opensuse',
    'opensuse-leap',
    'opensuse-microos',
    'opensuse-tumbleweed',
    'photon',
    'rhel',
    'sle_hpc',
    'sle-micro',
    'sles',
    'openeuler',
  ],
  activateBy: ['manage_resolv_conf'],
  configKeys: {
    manage_resolv_conf: 'bool',
    // The template writes each value as Jinja prints it: domain: 5 is 'domain 5'.
    resolv_conf: { nameservers: 'as-is', searchdomains: 'as-is', domain: 'str', sortlist: 'as-is', options: 'as-is' },
  },
  async run(ctx, cfg): Promise<void> {
    if (cfg.manage_resolv_conf === undefined) {
      ctx.log.debug("Skipping module named resolv_conf, no 'manage_resolv_conf' key in configuration");
      return;
    }
    if (!cfg.manage_resolv_conf) {
      ctx.log.debug("Skipping module named resolv_conf, 'manage_resolv_conf' present but set to False");
      return;
    }
    const params = cfg.resolv_conf;
    if (params === undefined) {
      ctx.log.warn('manage_resolv_conf True but no parameters provided!');
      return;
    }
    // Distro.resolve_conf_fn picks the file and its template.
    const resolved = RESOLVED_DISTROS.includes(ctx.distro.name);
    const tplFile = posix.join('/etc/cloud/templates', resolved ? 'systemd.resolved.conf.tmpl' : 'resolv.conf.tmpl');
    ctx.log.debug(`Writing resolv.conf from template ${tplFile}`);
    const header = await headerLines(ctx, tplFile);
    await ctx.platform.writeFile(
      resolved ? RESOLVED_TARGET : TARGET,
      resolved ? renderResolvedConf(header, params) : renderResolvConf(header, params),
      { mode: 0o644 },
    );
  },
});
