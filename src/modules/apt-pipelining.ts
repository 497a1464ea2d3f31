// cc_apt_pipelining: writes apt's Acquire::http::Pipeline-Depth to /etc/apt/apt.conf.d/90cloud-init-pipelining.
import type { Module } from './module';
import { pyStr } from '../util/python-str';
import { configModule } from './support/config-module';
import { readConfigValue, WarningReader } from './support/config-readers';

export const APT_PIPELINING_FILE = '/etc/apt/apt.conf.d/90cloud-init-pipelining';

export function aptPipeliningSnippet(depth: string): string {
  return `//Written by cloud-init per 'apt_pipelining'\nAcquire::http::Pipeline-Depth "${depth}";\n`;
}

/**
 * apt_pipelining as cc_apt_pipelining reads it, str(value).lower().strip(): 'false' is false, os/none/unchanged
 * leave apt alone, 0 to 5 is that depth; anything else (True, 6, 'fast') is only warned about, as upstream does.
 */
const pipeliningSetting = new WarningReader(
  (value) => {
    const word = (readConfigValue('str', value) as string).toLowerCase().trim();
    if (word === 'false') return false;
    if (word === 'os' || word === 'none' || word === 'unchanged') return word;
    return /^[0-5]$/.test(word) ? Number(word) : undefined;
  },
  (value) => `Invalid option for apt_pipelining: ${readConfigValue('str', value) as string}`,
);

export const aptPipeliningModule: Module = configModule({
  name: 'apt_pipelining',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['ubuntu', 'debian'],
  activateBy: ['apt_pipelining'],
  configKeys: { apt_pipelining: pipeliningSetting },
  async run(ctx, cfg): Promise<void> {
    const setting = cfg.apt_pipelining ?? 'os';
    if (typeof setting === 'string') return;
    const depth = setting === false ? '0' : pyStr(setting);
    await ctx.platform.writeFile(APT_PIPELINING_FILE, aptPipeliningSnippet(depth));
    ctx.log.debug(`Wrote ${APT_PIPELINING_FILE} with apt pipeline depth setting ${depth}`);
  },
});
