// Parses a YAML config text into a mapping, with errors that name the file, line and column.
import { parseDocument } from 'yaml';
import { ConfigError } from '../util/errors';
import { NOT_PLAIN, readPlainYaml } from './plain-yaml';

export type ConfigMap = Record<string, unknown>;

export function isConfigMap(value: unknown): value is ConfigMap {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** TEXT's value through the yaml package, with an error naming SOURCE, line and column. */
function parseWithYamlPackage(text: string, source: string): unknown {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: false });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    const where = pos ? `${source}:${pos.line}:${pos.col}` : source;
    throw new ConfigError(`${where}: invalid YAML: ${first.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  try {
    return doc.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    // The yaml package refuses aliases that expand past its count (a resource exhaustion attack).
    throw new ConfigError(`${source}: invalid YAML: ${(err as Error).message}`);
  }
}

/**
 * Parses TEXT (from SOURCE, a file name for messages); an empty document is an empty mapping. Plain files are
 * read by plain-yaml.ts (the same values, much faster cold); the rest, and every error, by the yaml package.
 */
export function parseYamlConfig(text: string, source: string): ConfigMap {
  const plain = readPlainYaml(text);
  const value: unknown = plain !== NOT_PLAIN ? plain : parseWithYamlPackage(text, source);
  if (value === null || value === undefined) return {};
  if (!isConfigMap(value)) throw new ConfigError(`${source}: expected a mapping at the top level, found ${Array.isArray(value) ? 'a list' : typeof value}`);
  return value;
}
