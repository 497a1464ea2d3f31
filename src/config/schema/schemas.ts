// Every JSON Schema document kiln validates against, by the name its validators are generated and looked up by
// (build time: standalone-validators.ts; run time: prebuilt-validators.ts or compile-validators.ts).
import { CLOUD_CONFIG_SCHEMA } from './cloud-config';

export const SCHEMAS = {
  cloudConfig: CLOUD_CONFIG_SCHEMA,
} as const;

export type SchemaName = keyof typeof SCHEMAS;
