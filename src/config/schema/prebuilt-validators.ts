// The validators generated at build time (standalone-validators.ts, through build-validators.mjs's `kiln:validators`).
import * as generated from 'kiln:validators';
import { lifecycleBranches } from './lifecycle-branches';
import { SCHEMAS, type SchemaName } from './schemas';
import type { SchemaValidators, ValidatingFunction } from './schema-validators';

export function prebuiltValidators(name: SchemaName): SchemaValidators {
  const root = SCHEMAS[name] as unknown as Record<string, unknown>;
  const functions = generated as unknown as Record<string, ValidatingFunction | undefined>;
  const validate = functions[name];
  if (!validate) throw new Error(`${name}: no validator was generated at build time`);
  const branches = new Map(lifecycleBranches(root).map((pointer, i) => [pointer, `${name}_${i}`]));
  return {
    root,
    validate,
    branch(pointer) {
      const found = functions[branches.get(pointer) ?? ''];
      if (!found) throw new Error(`${name}: no validator was generated for the lifecycle branch at ${pointer}`);
      return found;
    },
  };
}
