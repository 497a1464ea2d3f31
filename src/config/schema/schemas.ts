// Every JSON Schema document kiln validates against, by the name its validators are generated and looked up by
// (build time: standalone-validators.ts; run time: prebuilt-validators.ts or compile-validators.ts).
import { CLOUD_CONFIG_SCHEMA } from './cloud-config';
import { NETWORK_CONFIG_V1_SCHEMA } from './network-config-v1';
import { NETWORK_CONFIG_V2_SCHEMA } from './network-config-v2';

export const SCHEMAS = {
  cloudConfig: CLOUD_CONFIG_SCHEMA,
  networkConfigV1: NETWORK_CONFIG_V1_SCHEMA,
  networkConfigV2: NETWORK_CONFIG_V2_SCHEMA,
} as const;

export type SchemaName = keyof typeof SCHEMAS;
