// Build time only (build-validators.mjs bundles and runs this): the validating code of every schema in SCHEMAS as one
// CommonJS module, Ajv's standalone code, so that the binary never compiles a schema. For schema NAME it exports NAME
// (the whole document) and NAME_I for the I-th of lifecycleBranches (the anyOf/oneOf branches lifecycle checks need).
import standaloneCode from 'ajv/dist/standalone';
import { lifecycleBranches } from './lifecycle-branches';
import { newAjv, schemaId } from './new-ajv';
import { SCHEMAS } from './schemas';

export function standaloneValidatorsCode(): string {
  const ajv = newAjv({ source: true });
  const exports: Record<string, string> = {};
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const id = schemaId(name);
    ajv.addSchema({ ...schema, $id: id });
    exports[name] = id;
    lifecycleBranches(schema).forEach((pointer, i) => {
      exports[`${name}_${i}`] = `${id}${pointer}`;
    });
  }
  return standaloneCode(ajv, exports);
}
