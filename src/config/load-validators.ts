// The schema validators, loaded on first use: Ajv and the schemas are some sixty modules of the bundle, and a
// static import would evaluate them at every start (1-4 ms a module) though only `schema` validates. esbuild
// keeps the dynamic import lazy (a require run when it is first awaited).
type CloudConfigValidator = typeof import('./validate-cloud-config');

let cloudConfig: Promise<CloudConfigValidator> | undefined;

export function loadCloudConfigValidator(): Promise<CloudConfigValidator> {
  cloudConfig ??= import('./validate-cloud-config');
  return cloudConfig;
}
