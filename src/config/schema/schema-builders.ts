// Small constructors for the JSON Schema documents in this folder. Each returns a plain object whose literal
// type is kept (`as const` all the way down), so that the schemas can later give the code its types.

export const str = { type: 'string' } as const;
export const bool = { type: 'boolean' } as const;
export const int = { type: 'integer' } as const;
export const num = { type: 'number' } as const;
export const nul = { type: 'null' } as const;
/** Any mapping (its keys unchecked). */
export const anyObject = { type: 'object' } as const;
/** Any list (its items unchecked). */
export const anyArray = { type: 'array' } as const;

export function arrayOf<const I>(items: I) {
  return { type: 'array', items } as const;
}

/** A list of at least one item. */
export function nonEmptyArrayOf<const I>(items: I) {
  return { type: 'array', items, minItems: 1 } as const;
}

export const strings = arrayOf(str);
export const nonEmptyStrings = nonEmptyArrayOf(str);

export function oneOf<const S extends readonly unknown[]>(...schemas: S) {
  return { oneOf: schemas } as const;
}

export function anyOf<const S extends readonly unknown[]>(...schemas: S) {
  return { anyOf: schemas } as const;
}

export function enumOf<const V extends readonly unknown[]>(...values: V) {
  return { enum: values } as const;
}

export function stringEnum<const V extends readonly string[]>(...values: V) {
  return { type: 'string', enum: values } as const;
}

/** A mapping with exactly the keys PROPERTIES names (each optional unless listed in `required`). */
export function closedObject<const P>(properties: P) {
  return { type: 'object', properties, additionalProperties: false } as const;
}

/** A mapping whose keys match PATTERN, each value checked by VALUE, and no other keys. */
export function mapOf<const V>(pattern: string, value: V) {
  return {
    type: 'object',
    patternProperties: { [pattern]: value } as { readonly [key: string]: V },
    additionalProperties: false,
  } as const;
}

/**
 * NODE marked as deprecated the way cloud-init's schema marks it: whenever a value reaches it, a deprecation
 * (never an error) " Deprecated in version VERSION. DESCRIPTION" is reported.
 */
export function deprecated<const N extends object, const V extends string, const D extends string>(
  node: N,
  version: V,
  description: D,
) {
  return { ...node, deprecated: true, lifecycle: { change: 'Deprecated', version, description } } as const;
}

/**
 * NODE as a form still accepted but changed in VERSION: reported as deprecations are, " Changed in version VERSION.
 * DESCRIPTION".
 */
export function changed<const N extends object, const V extends string, const D extends string>(
  node: N,
  version: V,
  description: D,
) {
  return { ...node, lifecycle: { change: 'Changed', version, description } } as const;
}

/** "Use **KEY** instead.": the description of a key deprecated for another. */
export function renamed<const N extends object, const V extends string, const K extends string>(
  node: N,
  version: V,
  replacement: K,
) {
  return deprecated(node, version, `Use **${replacement}** instead.` as `Use **${K}** instead.`);
}
