// The schema errors of part of a cloud-config (a module's keys), by the validators generated at build time and in
// cloud-init's words (json-schema-check.ts). Deprecations are left out: the init stage reports them for the whole
// config once, as cloud-init 25.1 does.
import { checkValue, type SchemaFinding } from './json-schema-check';
import { prebuiltValidators } from './prebuilt-validators';
import type { SchemaValidators } from './schema-validators';

let validators: SchemaValidators | undefined;

/** SLICE's errors against the cloud-config schema (its keys are top-level keys; the keys it lacks are not checked). */
export function configSliceErrors(slice: Readonly<Record<string, unknown>>): SchemaFinding[] {
  validators ??= prebuiltValidators('cloudConfig');
  return checkValue(validators, slice).filter((f) => f.kind === 'error');
}
