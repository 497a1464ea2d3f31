// cc_apt_pipelining: writes apt's Acquire::http::Pipeline-Depth to /etc/apt/apt.conf.d/90cloud-init-pipelining.
import type { Module } from './module';
import { pyStr } from '../util/python-str';

export const APT_PIPELINING_FILE = '/etc/apt/apt.conf.d/90cloud-init-pipelining';

export function aptPipeliningSnippet(depth: string): string {
  return `//Written by cloud-init per 'apt_pipelining'\nAcquire::http::Pipeline-Depth "${depth}";\n`;
}

export const aptPipeliningModule: Module = {
  name: 'apt_pipelining',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['ubuntu', 'debian'],
  activateBy: ['apt_pipelining'],
  async run(ctx, cfg): Promise<void> {
    const raw = cfg.apt_pipelining === undefined ? 'os' : cfg.apt_pipelining;
    const value = pyStr(raw).trim().toLowerCase();
    let depth: string | undefined;
    if (value === 'false') depth = '0';
    else if (['none', 'unchanged', 'os'].includes(value)) return;
    else if (/^[0-5]$/.test(value)) depth = value;
    if (depth === undefined) {
      ctx.log.warn(`Invalid option for apt_pipelining: ${pyStr(raw)}`);
      return;
    }
    await ctx.platform.writeFile(APT_PIPELINING_FILE, aptPipeliningSnippet(depth));
    ctx.log.debug(`Wrote ${APT_PIPELINING_FILE} with apt pipeline depth setting ${depth}`);
  },
};
