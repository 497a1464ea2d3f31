// The validating functions of one schema, whether generated at build time or compiled at run time: the whole
// document's, and one per anyOf/oneOf branch that holds a `lifecycle` node (to tell whether that branch is the
// one chosen, so that its deprecation counts).
import type { ErrorObject } from 'ajv';

/** One schema or sub-schema's validating function, as Ajv makes it (passContext: `this` carries `reached`). */
export interface ValidatingFunction {
  (this: void, data: unknown): boolean;
  (this: LifecycleRecorder, data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** A `lifecycle` node a value reached: its schema path ('#/properties/users/…') and the value's JSON pointer. */
export interface ReachedLifecycle {
  schemaPath: string;
  instancePath: string;
}

/** What a validation is called with to hear of the lifecycle nodes it reaches. */
export interface LifecycleRecorder {
  reached: ReachedLifecycle[];
}

export interface SchemaValidators {
  root: Record<string, unknown>;
  validate: ValidatingFunction;
  /** The validator of the branch at POINTER ('#/properties/x/anyOf/1'), one of lifecycleBranches(root). */
  branch(pointer: string): ValidatingFunction;
}
