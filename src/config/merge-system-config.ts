// Merges system config files the way cloud-init merges cloud.cfg and cloud.cfg.d: mappings recurse, later wins.
import { isConfigMap, type ConfigMap } from './parse-yaml-config';

/** A new mapping: BASE overlaid with TOP; nested mappings merge, any other value from TOP replaces. */
export function mergeSystemConfig(base: ConfigMap, top: ConfigMap): ConfigMap {
  const out: ConfigMap = { ...base };
  for (const [key, value] of Object.entries(top)) {
    const below = out[key];
    out[key] = isConfigMap(below) && isConfigMap(value) ? mergeSystemConfig(below, value) : value;
  }
  return out;
}
