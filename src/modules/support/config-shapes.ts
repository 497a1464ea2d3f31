// Type guards for cloud-config values read from YAML (mappings, lists) used by the config- and final-stage modules.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A mapping under KEY, or an empty one (cloud-init's cfg.get(key, {})). */
export function cfgRecord(cfg: Record<string, unknown>, key: string): Record<string, unknown> {
  const v = cfg[key];
  return isRecord(v) ? v : {};
}

/** Single-quotes ARG for /bin/sh. */
export function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
