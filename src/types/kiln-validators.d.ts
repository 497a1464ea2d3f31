// The schema validators build-validators.mjs generates at build time (src/config/schema/standalone-validators.ts):
// one validating function per export, looked up by name in src/config/schema/prebuilt-validators.ts.
declare module 'kiln:validators' {
  const validators: Record<string, unknown>;
  export = validators;
}
