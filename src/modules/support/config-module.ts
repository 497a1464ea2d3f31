// The boundary between the merged cloud-config and a module that reads it typed: the module names the top-level keys
// it reads, and before it runs those keys (only those) are checked once against the cloud-config schema, the same
// validators `cloud-init schema` and the init stage's check use. The module then gets them typed as the schema says
// (config/schema/cloud-config-types.ts), so it re-checks no types of its own.
//
// cloud-init 25.1 validates the whole config once, in the init stage, with warnings only, and still runs every
// module; its module then reads each key with its own lenient readers and warns, skips or fails as its code does.
// So before the check each key is read as the module's upstream code reads it (support/config-readers.ts: str(),
// is_true, a one-item list, upstream's warn-and-skip, or a function of the module's own), and the module gets the
// value cloud-init's module would have worked with. Only a value still not of the schema's shape fails the module,
// with a ModuleError naming the key and the schema's message (the check leaves out counts and repeats:
// config-slice-errors.ts); never the stage.
//
// A key whose upstream module acts on values 25.1's own schema rejects is read by the module's OwnParser instead:
// its typed value is what the parser gives, and the schema does not judge it (config-readers.ts says why). So is a
// top-level key 25.1's schema does not know at all but its module still reads (ubuntu_pro's old `ubuntu-advantage`):
// only an OwnParser may read such a key.
import type { CloudConfigKey, CloudConfigValue } from '../../config/schema/cloud-config-types';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from '../module';
import { type ConfigReader, OwnParser, type ReaderWarn, readConfigValue } from './config-readers';

/** How a module reads each top-level key it reads. */
export type ConfigReaders = { readonly [P in CloudConfigKey]?: ConfigReader };

/** The type of a value of schema type V once READER has read it (a reader that always gives a string, a string …). */
type ReadType<R, V> =
  R extends OwnParser<infer T>
    ? T
    : R extends 'str' | 'truthy-str'
      ? Extract<V, string>
      : R extends 'bool' | 'truthy' | 'not-false'
        ? Extract<V, boolean>
        : R extends 'list'
          ? Extract<V, readonly unknown[]>
          : V;

/**
 * The part of the cloud-config a module with READERS gets: each key it reads, absent or as read and checked (a key
 * outside the schema as its OwnParser gives it).
 */
export type ReadSlice<R extends ConfigReaders> = {
  readonly [P in keyof R & string]?: P extends CloudConfigKey
    ? ReadType<R[P], CloudConfigValue<P>>
    : R[P] extends OwnParser<infer T>
      ? T
      : never;
};

/** A module that reads the cloud-config keys of READERS, each read by its reader and typed by the schema. */
export interface ConfigModuleSpec<R extends ConfigReaders> extends Omit<Module, 'run' | 'prepare' | 'configKeys'> {
  /** The top-level keys the module reads (and all it is given), each with the way its upstream code reads it. */
  readonly configKeys: R;
  run(ctx: ModuleContext, cfg: ReadSlice<R>): Promise<void>;
}

/** The keys of CFG that READERS name, each as its reader reads it (absent ones left out, as `'x' in cfg` expects). */
function readSlice(cfg: CloudConfig, readers: ConfigReaders, warn?: ReaderWarn): Record<string, unknown> {
  const slice: Record<string, unknown> = {};
  for (const [key, reader] of Object.entries(readers) as Array<[string, ConfigReader]>) {
    if (!Object.hasOwn(cfg, key)) continue;
    const value = readConfigValue(reader, cfg[key], warn);
    if (value !== undefined) slice[key] = value;
  }
  return slice;
}

/**
 * CFG's part that MODULE reads, once it is checked: a ModuleError naming each key at fault and the schema's message
 * when it is not as the schema says. The validators are loaded on first use (as load-validators.ts does), so that a
 * command that runs no module never evaluates them.
 */
export async function checkedSlice<R extends ConfigReaders>(
  module: string,
  readers: R,
  cfg: CloudConfig,
  warn?: ReaderWarn,
): Promise<ReadSlice<R>> {
  const slice = readSlice(cfg, readers, warn);
  const judged = Object.fromEntries(
    Object.entries(slice).filter(([key]) => !(readers[key as CloudConfigKey] instanceof OwnParser)),
  );
  if (Object.keys(judged).length === 0) return slice as ReadSlice<R>;
  const { configSliceErrors } = await import('../../config/schema/config-slice-errors');
  const errors = configSliceErrors(judged);
  if (errors.length > 0)
    throw new ModuleError(module, `Invalid cloud-config: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  return slice as ReadSlice<R>;
}

/**
 * SPEC as a Module: its run() gets only its keys, read as its upstream code reads them, checked against the schema and
 * typed. A key the schema does not know must be read by an OwnParser.
 */
export function configModule<const R extends ConfigReaders>(
  spec: ConfigModuleSpec<R> & {
    readonly configKeys: { readonly [K in Exclude<keyof R, CloudConfigKey>]: OwnParser<unknown> };
  },
): Module {
  const { run, ...rest } = spec;
  return {
    ...rest,
    configKeys: Object.keys(spec.configKeys),
    async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
      await run.call(spec, ctx, await checkedSlice(spec.name, spec.configKeys, cfg, (m) => ctx.log.warn(m)));
    },
  };
}
