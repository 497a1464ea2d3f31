// The variables a `## template: jinja` part sees: instance-data.json with cloud-init's key aliases.

function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * instance data → jinja variables, as cloud-init's convert_jinja_instance_data(include_key_aliases=True):
 * every key with '-', ' ' or '/' also appears with '_' (`ds.meta_data.instance_id` for `instance-id`), and
 * `v1` keys are also at the top level (`{{ local_hostname }}`).
 */
export function jinjaVariables(instanceData: Record<string, unknown>): Record<string, unknown> {
  const aliased = alias(instanceData) as Record<string, unknown>;
  const v1 = aliased.v1;
  return isDict(v1) ? { ...v1, ...aliased } : aliased;
}

function alias(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(alias);
  if (!isDict(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = alias(x);
  for (const [k, x] of Object.entries(out)) {
    const a = k.replace(/[- /]/g, '_');
    if (a !== k && !Object.hasOwn(out, a)) out[a] = x;
  }
  return out;
}
