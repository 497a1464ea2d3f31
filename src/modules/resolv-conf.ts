// cc_resolv_conf: with manage_resolv_conf, writes /etc/resolv.conf from resolv_conf (nameservers, search, domain, sortlist, options).
import { posix } from 'node:path';
import { cfgBool } from './support/config-values';
import { pyStr } from '../util/python-str';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from './module';

const TARGET = '/etc/resolv.conf';
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

function listOf(v: unknown, key: string): string[] {
  if (Array.isArray(v)) return v.map(pyStr);
  throw new ModuleError('resolv_conf', `resolv_conf.${key} must be a list`);
}

/** The text cloud-init's resolv.conf template produces for PARAMS (same lines, spacing and blank lines). */
export function renderResolvConf(header: string[], params: Record<string, unknown>): string {
  let out = header.map((l) => `${l}\n`).join('');
  if ('nameservers' in params) {
    for (const s of listOf(params.nameservers, 'nameservers')) out += `nameserver ${s}\n`;
    out += '\n';
  }
  if ('searchdomains' in params) out += `search ${listOf(params.searchdomains, 'searchdomains').map((s) => `${s} `).join('')}\n`;
  if ('domain' in params) out += `domain ${pyStr(params.domain)}\n`;
  if ('sortlist' in params) out += `\nsortlist ${listOf(params.sortlist, 'sortlist').map((s) => `${s} `).join('')}`;
  const flags: string[] = [];
  const options: Array<[string, unknown]> = [];
  const rawOptions = params.options;
  if (rawOptions !== undefined && rawOptions !== null) {
    if (typeof rawOptions !== 'object' || Array.isArray(rawOptions)) throw new ModuleError('resolv_conf', 'resolv_conf.options must be a mapping');
    for (const [k, v] of Object.entries(rawOptions)) {
      if (typeof v === 'boolean') {
        if (v) flags.push(k);
      } else options.push([k, v]);
    }
  }
  options.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (flags.length > 0 || options.length > 0) out += `\noptions${flags.map((f) => ` ${f}`).join('')}${options.map(([k, v]) => ` ${k}:${pyStr(v)}`).join('')}`;
  return `${out}\n`;
}

export const resolvConf: Module = {
  name: 'resolv_conf',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: ['alpine', 'fedora', 'mariner', 'opensuse', 'photon', 'rhel', 'sles'],
  activateBy: ['manage_resolv_conf'],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    if (!('manage_resolv_conf' in cfg)) {
      ctx.log.debug("Skipping module named resolv_conf, no 'manage_resolv_conf' key in configuration");
      return;
    }
    if (!cfgBool(cfg, 'manage_resolv_conf', false)) {
      ctx.log.debug("Skipping module named resolv_conf, 'manage_resolv_conf' present but set to False");
      return;
    }
    const params = cfg.resolv_conf;
    if (params === undefined) {
      ctx.log.warn('manage_resolv_conf True but no parameters provided!');
      return;
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new ModuleError('resolv_conf', "'resolv_conf' must be a mapping");
    const tplFile = posix.join('/etc/cloud/templates', 'resolv.conf.tmpl');
    ctx.log.debug(`Writing resolv.conf from template ${tplFile}`);
    await ctx.platform.writeFile(TARGET, renderResolvConf(await headerLines(ctx, tplFile), params as Record<string, unknown>), { mode: 0o644 });
  },
};
