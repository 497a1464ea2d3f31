// Loads the system config: the embedded defaults, then cloud.cfg, cloud.cfg.d/*.cfg and /run/cloud-init/cloud.cfg.
import type { Platform } from '../platform/platform';
import { mergeSystemConfig } from './merge-system-config';
import { parseYamlConfig, type ConfigMap } from './parse-yaml-config';
import { decodeUtf8Strict } from '../util/utf8-text';

export interface SystemConfig {
  config: ConfigMap;
  /** Where each layer came from, lowest first ('<embedded>' for the built-in defaults). */
  sources: string[];
}

export const SYSTEM_CONFIG_FILE = '/etc/cloud/cloud.cfg';
export const SYSTEM_CONFIG_DIR = '/etc/cloud/cloud.cfg.d';
export const RUN_CONFIG_FILE = '/run/cloud-init/cloud.cfg';

/**
 * EMBEDDED is the build's default cloud.cfg, read by the YAML reader when the binary was built (build.mjs); each
 * load gets its own copy, so that nothing a boot does to its config reaches the next load in the same process.
 */
export async function loadSystemConfig(platform: Platform, embedded: ConfigMap | undefined): Promise<SystemConfig> {
  let config: ConfigMap = {};
  const sources: string[] = [];
  if (embedded !== undefined) {
    config = structuredClone(embedded);
    sources.push('<embedded>');
  }
  const files: string[] = [SYSTEM_CONFIG_FILE];
  if (await platform.exists(SYSTEM_CONFIG_DIR)) {
    for (const name of await platform.listDir(SYSTEM_CONFIG_DIR))
      if (name.endsWith('.cfg')) files.push(`${SYSTEM_CONFIG_DIR}/${name}`);
  }
  files.push(RUN_CONFIG_FILE);
  for (const file of files) {
    let text = await platform.readTextIfExists(file);
    if (text === undefined) continue;
    // Read again as bytes only when the text holds a U+FFFD: that names the bad byte's line, or passes a real one.
    if (text.includes('\uFFFD')) text = decodeUtf8Strict(await platform.readFile(file), file);
    config = mergeSystemConfig(config, parseYamlConfig(text, file));
    sources.push(file);
  }
  return { config, sources };
}
