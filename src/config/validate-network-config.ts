// Checks a network-config document as cloud-init 25.1's `schema -t network-config` does: an empty config (or an empty
// `network:`) is skipped; `version` (under `network:` when that key is there) picks the v1 or the v2 schema, any
// other version is judged by the v2 schema (upstream's default for network-config). Version 2 is judged by
// cloud-init's own v2 schema, as 25.1 does on a system without netplan (with netplan's Python API it hands the
// document to netplan's parser, which kiln does not carry).
import { prebuiltValidators } from './schema/prebuilt-validators';
import type { SchemaValidators } from './schema/schema-validators';
import { readSchemaDocument, typeName, type ValidationResult } from './validate-cloud-config';

export type NetworkSchemaName = 'networkConfigV1' | 'networkConfigV2';

export interface NetworkValidationResult extends ValidationResult {
  /** Set when 25.1 skips the check (an empty config): its message. */
  skipped?: string;
}

/** upstream's network_schema_version: `network.version` when there is a `network` key, else `version`. */
export function networkSchemaName(config: Record<string, unknown>): NetworkSchemaName {
  const holder = 'network' in config ? config.network : config;
  const version =
    holder !== null && typeof holder === 'object' ? (holder as Record<string, unknown>).version : undefined;
  return version === 1 ? 'networkConfigV1' : 'networkConfigV2';
}

const prebuilt = new Map<NetworkSchemaName, SchemaValidators>();

/** TEXT checked as network config; VALIDATORS (by schema) replace the ones generated at build time. */
export function validateNetworkConfig(
  text: string,
  opts: { validators?: (name: NetworkSchemaName) => SchemaValidators } = {},
): NetworkValidationResult {
  const read = readSchemaDocument(text, 'network-config');
  if ('fatal' in read) return { problems: [], fatal: read.fatal, yamlError: read.yamlError };
  const { value } = read;
  if (
    value === null ||
    typeof value !== 'object' ||
    Array.isArray(value) ||
    value instanceof Uint8Array ||
    value instanceof Date
  ) {
    return { problems: [], fatal: `network-config is not a YAML dict (found ${typeName(value)})` };
  }
  const config = value as Record<string, unknown>;
  const body = 'network' in config ? config.network : config;
  const empty =
    !body || (typeof body === 'object' && Object.keys(body).length === 0) || (Array.isArray(body) && body.length === 0);
  if (empty) return { problems: [], skipped: 'Skipping network-config schema validation on empty config.' };
  const name = networkSchemaName(config);
  let validators = opts.validators?.(name) ?? prebuilt.get(name);
  if (!validators) {
    validators = prebuiltValidators(name);
    prebuilt.set(name, validators);
  }
  return { problems: read.problems(validators) };
}
