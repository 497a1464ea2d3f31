// The boundary between the merged cloud-config and a module that reads it typed: the module names the top-level keys
// it reads, and before it runs those keys (only those) are checked once against the cloud-config schema, the same
// validators `cloud-init schema` and the init stage's check use. The module then gets them typed as the schema says
// (config/schema/cloud-config-types.ts), so it re-checks no types of its own.
//
// cloud-init 25.1 validates the whole config once, in the init stage, with warnings only, and still runs every
// module; an invalid value then fails the module with whatever error its code meets. A typed module fails instead
// with a ModuleError that names the key at fault and the schema's message (the init stage has already warned about
// it): the module still runs on invalid config in the sense that it is called and fails on its own, never the stage.
// So a module reads its config this way only where that changes nothing users commonly write: a module that answers
// schema-invalid values cloud-init accepts (runcmd's `[sleep, 10]` and write_files' `permissions: 0644` are numbers
// where the schema wants strings) or that has upstream's own messages and warnings for them, which tests pin, keeps
// reading the whole config untyped. (A boolean written as a quoted word, 'yes', which get_cfg_option_bool takes, is
// such a value too; unquoted, YAML 1.1 already makes yes a boolean.)
import type { CloudConfigKey, CloudConfigSlice } from '../../config/schema/cloud-config-types';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from '../module';

/** A module that reads the cloud-config keys KEYS, typed by the schema. */
export interface ConfigModuleSpec<K extends CloudConfigKey> extends Omit<Module, 'run' | 'prepare' | 'configKeys'> {
  /** The top-level keys the module reads (and all it is given). */
  readonly configKeys: readonly K[];
  run(ctx: ModuleContext, cfg: CloudConfigSlice<K>): Promise<void>;
}

/** The keys of CFG among KEYS (absent ones left out, as a module that reads `'x' in cfg` expects). */
function sliceOf(cfg: CloudConfig, keys: readonly string[]): Record<string, unknown> {
  const slice: Record<string, unknown> = {};
  for (const key of keys) if (Object.hasOwn(cfg, key)) slice[key] = cfg[key];
  return slice;
}

/**
 * CFG's part that MODULE reads, once it is checked: a ModuleError naming each key at fault and the schema's message
 * when it is not as the schema says. The validators are loaded on first use (as load-validators.ts does), so that a
 * command that runs no module never evaluates them.
 */
export async function checkedSlice<K extends CloudConfigKey>(module: string, keys: readonly K[], cfg: CloudConfig): Promise<CloudConfigSlice<K>> {
  const slice = sliceOf(cfg, keys);
  if (Object.keys(slice).length === 0) return {};
  const { configSliceErrors } = await import('../../config/schema/config-slice-errors');
  const errors = configSliceErrors(slice);
  if (errors.length > 0) throw new ModuleError(module, `Invalid cloud-config: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  return slice as CloudConfigSlice<K>;
}

/** SPEC as a Module: its run() gets only its keys, checked against the schema and typed. */
export function configModule<const K extends CloudConfigKey>(spec: ConfigModuleSpec<K>): Module {
  const { run, ...rest } = spec;
  return {
    ...rest,
    async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
      await run.call(spec, ctx, await checkedSlice(spec.name, spec.configKeys, cfg));
    },
  };
}
