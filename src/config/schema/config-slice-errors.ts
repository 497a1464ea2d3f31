// The schema errors of part of a cloud-config (a module's keys), by the validators generated at build time and in
// cloud-init's words (json-schema-check.ts), as a typed module's boundary needs them
// (modules/support/config-module.ts): only those about the value's shape, which its types describe. Deprecations are
// left out: the init stage reports them for the whole config once, as cloud-init 25.1 does. So are the limits no
// module's code relies on and no cloud-init module enforces (it validates with warnings only): counts (an empty list
// where the schema wants one item at least, a mapping with no keys) and repeated items. (Keys a module does not read
// are left out before the check by its readers: support/config-readers.ts.)
import { checkValue, type SchemaFinding } from './json-schema-check';
import { prebuiltValidators } from './prebuilt-validators';
import type { SchemaValidators } from './schema-validators';

/** The keywords whose errors the boundary leaves out: none of them changes the type a value has. */
const SHAPELESS_KEYWORDS = new Set(['minItems', 'maxItems', 'minProperties', 'maxProperties', 'uniqueItems']);

let validators: SchemaValidators | undefined;

/**
 * SLICE's errors of shape against the cloud-config schema (its keys are top-level keys; the keys it lacks are not
 * checked).
 */
export function configSliceErrors(slice: Readonly<Record<string, unknown>>): SchemaFinding[] {
  validators ??= prebuiltValidators('cloudConfig');
  return checkValue(validators, slice).filter((f) => f.kind === 'error' && !SHAPELESS_KEYWORDS.has(f.keyword ?? ''));
}
