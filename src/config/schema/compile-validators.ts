// A schema's validators compiled by Ajv at run time (KILN_SCHEMA_COMPILE=runtime), instead of the ones generated
// at build time: Ajv generates and compiles the validating code at the first check (what that costs: docs/runner.md).
import { lifecycleBranches } from './lifecycle-branches';
import { newAjv, schemaId } from './new-ajv';
import { SCHEMAS, type SchemaName } from './schemas';
import type { SchemaValidators, ValidatingFunction } from './schema-validators';

export function compileValidators(name: SchemaName): SchemaValidators {
  const root = SCHEMAS[name] as unknown as Record<string, unknown>;
  const ajv = newAjv({ source: false });
  const id = schemaId(name);
  ajv.addSchema({ ...root, $id: id });
  const validate = ajv.getSchema(id) as ValidatingFunction;
  const known = new Set(lifecycleBranches(root));
  return {
    root,
    validate,
    branch(pointer) {
      if (!known.has(pointer)) throw new Error(`${name}: no lifecycle branch at ${pointer}`);
      return ajv.getSchema(`${id}${pointer}`) as ValidatingFunction;
    },
  };
}
