// koffi for tests, from the addon file test/run.mjs names in KILN_KOFFI_ADDON (undefined when it names none).
import { dlopenKoffi, type Koffi } from '../../src/util/koffi-addon';

let loaded: { koffi: Koffi | undefined } | undefined;

export function testKoffi(): Koffi | undefined {
  const path = process.env.KILN_KOFFI_ADDON;
  loaded ??= { koffi: path ? dlopenKoffi(path) : undefined };
  return loaded.koffi;
}
