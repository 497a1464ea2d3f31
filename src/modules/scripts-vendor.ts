// cc_scripts_vendor: runs vendor-data scripts in /var/lib/cloud/instance/scripts/vendor, with vendor_data.prefix.
import { isRecord } from './support/config-shapes';
import { posix } from 'node:path';
import { ModuleError, type Module } from './module';
import { runParts } from './support/run-parts';

/** vendor_data.prefix: a string or a list, put before each script (e.g. a wrapper). */
export function vendorPrefix(cfg: Record<string, unknown>): string[] {
  const vd = cfg.vendor_data;
  if (!isRecord(vd) || vd.prefix === undefined || vd.prefix === null) return [];
  if (typeof vd.prefix === 'string') return [vd.prefix];
  if (Array.isArray(vd.prefix)) return vd.prefix.map((p) => String(p));
  throw new ModuleError('scripts_vendor', `vendor_data.prefix must be a string or a list, got ${typeof vd.prefix}`);
}

export const scriptsVendorModule: Module = {
  name: 'scripts_vendor',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  async run(ctx, cfg): Promise<void> {
    await runParts(ctx, 'scripts_vendor', posix.join(ctx.instanceDir, 'scripts', 'vendor'), vendorPrefix(cfg));
  },
};
