// The user data WSL's datasource hands over: one user-data file, or Ubuntu Pro for WSL's agent.yaml and Landscape
// data merged with it by upstream's rules (agent keys win whole; the user's Landscape tags survive).
import { pyyamlDump } from '../../config/pyyaml-dump';
import { readYaml } from '../../config/read-yaml';
import type { Log } from '../../util/log';

export const DEFAULT_WSL_INSTANCE_ID = 'iid-datasource-wsl';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * One configuration file: its text (perhaps rewritten), its path in the instance, and its mapping when it is
 * cloud-config.
 */
export interface ConfigData {
  raw: string;
  path: string;
  config?: Obj;
}

/**
 * True when TEXT starts as a #cloud-config part (not #cloud-config-archive or -jsonp), as cloud-init's
 * type_from_starts_with.
 */
function isCloudConfigText(text: string): boolean {
  const lc = text.slice(0, 64).trimStart().toLowerCase();
  return (
    lc.startsWith('#cloud-config') && !lc.startsWith('#cloud-config-archive') && !lc.startsWith('#cloud-config-jsonp')
  );
}

/**
 * Upstream's ConfigData: a #cloud-config file is also read as a mapping (a YAML error or a non-mapping leaves it
 * raw only); with a custom instance id and a `landscape.client` section, its `installation_request_id` defaults to
 * the instance id, and the text is then rewritten from the mapping.
 */
export function configData(raw: string, path: string, instanceId: string): ConfigData {
  const data: ConfigData = { raw, path };
  if (isCloudConfigText(raw)) {
    try {
      const v = readYaml(raw, path);
      if (isObj(v)) data.config = v;
    } catch {
      // cloud-init's load_yaml gives its default (None) on a YAML error: the file stays raw text.
    }
  }
  const landscape = data.config?.landscape;
  const client = isObj(landscape) ? landscape.client : undefined;
  if (
    data.config &&
    Object.keys(data.config).length > 0 &&
    instanceId &&
    instanceId !== DEFAULT_WSL_INSTANCE_ID &&
    client !== undefined &&
    client !== null &&
    isObj(client)
  ) {
    if (!('installation_request_id' in client)) client.installation_request_id = instanceId;
    if (client.installation_request_id === instanceId)
      data.raw = `#cloud-config\n${pyyamlDump(data.config, true, 2).trim()}`;
  }
  return data;
}

/** Upstream's merge_agent_landscape_data: what becomes the instance's user data, or undefined for none. */
export function mergeAgentAndUserData(
  agent: ConfigData | undefined,
  user: ConfigData | undefined,
  log: Log,
): string | undefined {
  if (!agent?.raw) return user?.raw ? user.raw : undefined;
  if (!user?.raw) return agent.raw;
  if (!agent.config || !user.config) {
    // Not both mappings: cloud-init is left to merge them, the agent's first (it is generated, so it parses).
    log.debug(`WSL: unable to merge ${agent.path} and ${user.path}; providing them as a user-data #include`);
    return `#include\n${agent.path}\n${user.path}\n`;
  }
  const merged: Obj = user.config;
  const userLandscape = merged.landscape;
  const userClient = isObj(userLandscape) ? userLandscape.client : undefined;
  const userTags = isObj(userClient) && userClient.tags ? userClient.tags : '';
  const overridden: string[] = [];
  for (const [k, v] of Object.entries(agent.config)) {
    if (k in merged) overridden.push(k);
    merged[k] = v;
  }
  if (overridden.length > 0) log.debug(`WSL: agent.yaml overrides config keys: ${overridden.join(', ')}`);
  const landscape = merged.landscape;
  if (userTags && isObj(landscape) && isObj(landscape.client) && Object.keys(landscape.client).length > 0) {
    log.debug(`WSL: Landscape client conf updated with user-data landscape.client.tags: ${String(userTags)}`);
    landscape.client.tags = userTags;
  }
  // "datasouce" as upstream spells it: the text is the user data, byte for byte.
  return `#cloud-config\n# WSL datasouce Merged agent.yaml and user_data\n${pyyamlDump(merged, true, 2).trim()}`;
}
