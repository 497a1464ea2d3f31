// koffi's prebuilt addon as a build carries it: an asset of the binary (not a string in the bundle, which every
// start would parse), loaded with process.dlopen from a file.
import type * as KoffiModule from 'koffi';
import type { BuildFacts } from '../build-info';
import { describeError, PlatformError } from './errors';

export type Koffi = typeof KoffiModule;

/** The addon's bytes, read from the running binary's assets (a view of the binary, no copy). */
export function embeddedKoffiAddon(addon: NonNullable<BuildFacts['koffiAddon']>): Uint8Array {
  const sea = process.getBuiltinModule('node:sea');
  try {
    return new Uint8Array(sea.getRawAsset(addon.asset));
  } catch (err) {
    throw new PlatformError(`koffi's addon is not in this binary (asset ${addon.asset}): ${describeError(err)}`, {
      cause: err,
    });
  }
}

/** Loads the addon at PATH and returns koffi's API. */
export function dlopenKoffi(path: string): Koffi {
  const mod: { exports: Koffi } = { exports: {} as Koffi };
  try {
    process.dlopen(mod, path);
  } catch (err) {
    throw new PlatformError(`cannot load koffi from ${path}: ${describeError(err)}`, { cause: err });
  }
  return mod.exports;
}
