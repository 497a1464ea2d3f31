// The one Ajv setup kiln's schemas are compiled with, at build time (standalone code) and at run time alike.
import Ajv, { _, type KeywordCxt } from 'ajv';

/** kiln's id of a schema document, which its branches' pointers are resolved against. */
export function schemaId(name: string): string {
  return `kiln:${name}`;
}

/**
 * allErrors: every error, as jsonschema's iter_errors; verbose: the schema node of each; formats unchecked
 * (cloud-init's uri and hostname formats need Python packages Debian's cloud-init does not pull in); passContext: the
 * validation's `this` reaches every sub-schema, and `lifecycle` generates code that records each lifecycle node a value
 * reaches in `this.reached` (a LifecycleRecorder), by its schema path. SOURCE keeps the code for standalone generation.
 */
export function newAjv(opts: { source: boolean }): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    strict: false,
    validateFormats: false,
    passContext: true,
    code: { source: opts.source },
  });
  ajv.addKeyword({
    keyword: 'lifecycle',
    schemaType: 'object',
    code(cxt: KeywordCxt) {
      const { gen, it } = cxt;
      gen.if(_`this !== undefined && this.reached !== undefined`, () =>
        gen.code(_`this.reached.push({schemaPath: ${it.errSchemaPath}, instancePath: ${it.errorPath}})`),
      );
    },
  });
  return ajv;
}
