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

/**
 * The entries of STAGE's list. As cloud-init (26.x `_read_modules`, `_fixup_modules`): empty items are skipped, a
 * mapping without `name` is skipped, and an unknown frequency is reported through DEPRECATED (cloud-init logs a
 * deprecation, so the boot is degraded) and dropped, so the module runs at its own frequency; any other kind of
 * item stops the stage.
 */
export function readModuleList(
  config: Record<string, unknown>,
  stage: ModuleStage,
  deprecated: (message: string) => void = () => undefined,
): ModuleListEntry[] {
  const key = STAGE_MODULE_KEY[stage];
  const raw = config[key];
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new ConfigError(`${key}: expected a list of module names, found ${typeof raw}`);
  const frequencyOf = (name: string, value: unknown): { frequency?: Frequency } => {
    if (value === undefined || value === null || value === '') return {};
    const freq = parseFrequency(typeof value === 'string' ? value.trim() : value);
    if (freq) return { frequency: freq };
    deprecated(
      `Config specified module ${name} has an unknown frequency ${String(value)} is deprecated in 22.1 and scheduled to be removed in 27.1. Use always, once or once-per-instance`,
    );
    return {};
  };
  const out: ModuleListEntry[] = [];
  raw.forEach((item: unknown, i) => {
    if (
      item === null ||
      item === undefined ||
      item === '' ||
      item === false ||
      (Array.isArray(item) && item.length === 0)
    )
      return;
    if (typeof item === 'string') {
      out.push({ name: canonicalModuleName(item), args: [], listedAs: item.trim() });
      return;
    }
    if (Array.isArray(item) && typeof item[0] === 'string') {
      out.push({
        name: canonicalModuleName(item[0]),
        ...frequencyOf(item[0].trim(), item[1]),
        args: item.slice(2),
        listedAs: item[0].trim(),
      });
      return;
    }
    if (typeof item === 'object' && !Array.isArray(item)) {
      const rec = item as Record<string, unknown>;
      if (typeof rec.name !== 'string') return;
      out.push({
        name: canonicalModuleName(rec.name),
        ...frequencyOf(rec.name.trim(), rec.frequency),
        args: Array.isArray(rec.args) ? rec.args : [],
        listedAs: rec.name.trim(),
      });
      return;
    }
    throw new ConfigError(
      `${key}[${i}]: expected a module name, [name, frequency] or {name, frequency}, found ${JSON.stringify(item)}`,
    );
  });
  return out;
}
