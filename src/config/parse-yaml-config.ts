// Parses a YAML config text into a mapping, with errors that name the file, line and column.
import { ConfigError } from '../util/errors';
import { readYaml } from './read-yaml';

export type ConfigMap = Record<string, unknown>;

export function isConfigMap(value: unknown): value is ConfigMap {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Parses TEXT (from SOURCE, a file name for messages) with the YAML reader; an empty document is an empty mapping. */
export function parseYamlConfig(text: string, source: string): ConfigMap {
  const value = readYaml(text, source);
  if (value === null || value === undefined) return {};
  if (!isConfigMap(value))
    throw new ConfigError(
      `${source}: expected a mapping at the top level, found ${Array.isArray(value) ? 'a list' : typeof value}`,
    );
  return value;
}
