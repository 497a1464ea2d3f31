// The TypeScript types of cloud-config values, inferred from the schema itself (CLOUD_CONFIG_SCHEMA, whose nodes are
// `as const`) by json-schema-to-ts's FromSchema, so that a key's shape is written once, in the schema. Types only:
// nothing here reaches the binary.
import type { FromSchema } from 'json-schema-to-ts';
import type { CLOUD_CONFIG_SCHEMA } from './cloud-config';

type CloudConfigProperties = (typeof CLOUD_CONFIG_SCHEMA)['properties'];

/** A top-level cloud-config key the schema knows: 'runcmd', 'ntp', 'users' … */
export type CloudConfigKey = keyof CloudConfigProperties;

/** The value of top-level KEY as the schema allows it. */
export type CloudConfigValue<K extends CloudConfigKey> = FromSchema<CloudConfigProperties[K]>;
