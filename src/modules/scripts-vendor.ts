// cc_scripts_vendor: runs vendor-data scripts in /var/lib/cloud/instance/scripts/vendor, with vendor_data.prefix.
import { posix } from 'node:path';
import { ModuleError, type Module } from './module';
import { configModule } from './support/config-module';
import { readConfigValue } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { runParts } from './support/run-parts';

/**
 * vendor_data.prefix as subp.runparts takes its exe_prefix: null is none, a string is one word, a list its words;
 * anything else is refused (runparts' TypeError) in kiln's words.
 */
export function vendorPrefix(prefix: unknown): unknown {
  if (prefix === null) return undefined;
  if (typeof prefix === 'string') return [prefix];
  if (Array.isArray(prefix)) return prefix;
  throw new ModuleError('scripts_vendor', `vendor_data.prefix must be a string or a list, got ${typeof prefix}`);
}

export const scriptsVendorModule: Module = configModule({
  name: 'scripts_vendor',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  // get_cfg_by_path(cfg, ('vendor_data', 'prefix'), []): a vendor_data that is no mapping has no prefix.
  configKeys: {
    vendor_data: (value: unknown) => (isRecord(value) ? readConfigValue({ prefix: vendorPrefix }, value) : undefined),
  },
  async run(ctx, cfg): Promise<void> {
    const prefix = cfg.vendor_data?.prefix ?? [];
    const words = typeof prefix === 'string' ? [prefix] : prefix.map((p) => String(p));
    await runParts(ctx, 'scripts_vendor', posix.join(ctx.instanceDir, 'scripts', 'vendor'), words);
  },
});
