// Reads a stage's module list from config (cloud_init_modules …): names, `[name, freq]` and `{name, frequency}`.
import type { Frequency, ModuleStage } from '../modules/module';
import { ConfigError } from '../util/errors';
import { parseFrequency } from './semaphores';

export interface ModuleListEntry {
  name: string;
  /** A per-entry override (`- [runcmd, always]`); undefined means the module's own frequency. */
  frequency?: Frequency;
  /** Extra arguments after the frequency, kept for modules that read them. */
  args: unknown[];
  /** The name as the config wrote it ('scripts-per-boot'), which cloud-init's status.json errors show. */
  listedAs?: string;
}

export const STAGE_MODULE_KEY: Record<ModuleStage, string> = {
  init: 'cloud_init_modules',
  config: 'cloud_config_modules',
  final: 'cloud_final_modules',
};

/** cloud-init accepts `cc_name`, `name` and `name-with-dashes`; all mean cc_name_with_underscores. */
export function canonicalModuleName(name: string): string {
  return name.trim().replace(/^cc_/, '').replace(/-/g, '_');
}

export function readModuleList(config: Record<string, unknown>, stage: ModuleStage): ModuleListEntry[] {
  const key = STAGE_MODULE_KEY[stage];
  const raw = config[key];
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new ConfigError(`${key}: expected a list of module names, found ${typeof raw}`);
  return raw.map((item: unknown, i): ModuleListEntry => {
    if (typeof item === 'string') return { name: canonicalModuleName(item), args: [], listedAs: item.trim() };
    if (Array.isArray(item) && typeof item[0] === 'string') {
      const freq = item[1] === undefined ? undefined : parseFrequency(item[1]);
      if (item[1] !== undefined && freq === undefined) throw new ConfigError(`${key}[${i}]: unknown frequency '${String(item[1])}' for module ${item[0]} (use always, once or once-per-instance)`);
      return { name: canonicalModuleName(item[0]), ...(freq ? { frequency: freq } : {}), args: item.slice(2), listedAs: item[0].trim() };
    }
    if (item !== null && typeof item === 'object' && typeof (item as Record<string, unknown>).name === 'string') {
      const rec = item as Record<string, unknown>;
      const freq = rec.frequency === undefined ? undefined : parseFrequency(rec.frequency);
      if (rec.frequency !== undefined && freq === undefined) throw new ConfigError(`${key}[${i}]: unknown frequency '${String(rec.frequency)}' for module ${String(rec.name)}`);
      return { name: canonicalModuleName(rec.name as string), ...(freq ? { frequency: freq } : {}), args: Array.isArray(rec.args) ? rec.args : [], listedAs: (rec.name as string).trim() };
    }
    throw new ConfigError(`${key}[${i}]: expected a module name, [name, frequency] or {name, frequency}, found ${JSON.stringify(item)}`);
  });
}
