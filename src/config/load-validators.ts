// The schema validators, loaded on first use: Ajv and the schemas are some sixty modules of the bundle, and a
// static import would evaluate them at every start (1-4 ms a module) though only `schema` validates. esbuild
// keeps the dynamic imports lazy (a require run when first awaited).
import type { SchemaName } from './schema/schemas';
import type { SchemaValidators } from './schema/schema-validators';

type CloudConfigValidator = typeof import('./validate-cloud-config');
type NetworkConfigValidator = typeof import('./validate-network-config');

let cloudConfig: Promise<CloudConfigValidator> | undefined;
let networkConfig: Promise<NetworkConfigValidator> | undefined;

export function loadCloudConfigValidator(): Promise<CloudConfigValidator> {
  cloudConfig ??= import('./validate-cloud-config');
  return cloudConfig;
}

export function loadNetworkConfigValidator(): Promise<NetworkConfigValidator> {
  networkConfig ??= import('./validate-network-config');
  return networkConfig;
}

/**
 * The validators of schema NAME compiled by Ajv at run time when ENV has KILN_SCHEMA_COMPILE=runtime, else undefined:
 * the validators generated at build time are used (Ajv's compiler is then never loaded).
 */
export async function runtimeCompiledValidators(
  name: SchemaName,
  env: NodeJS.ProcessEnv,
): Promise<SchemaValidators | undefined> {
  return (await runtimeCompiler(env))?.(name);
}

/** Ajv's compiler of kiln's schemas when ENV has KILN_SCHEMA_COMPILE=runtime, else undefined. */
export async function runtimeCompiler(
  env: NodeJS.ProcessEnv,
): Promise<((name: SchemaName) => SchemaValidators) | undefined> {
  if (env.KILN_SCHEMA_COMPILE !== 'runtime') return undefined;
  const { compileValidators } = await import('./schema/compile-validators');
  return compileValidators;
}
