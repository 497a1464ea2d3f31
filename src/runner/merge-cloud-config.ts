// The cloud-config modules see: system config < datasource config < vendor data < user data.
import { mergeSystemConfig } from '../config/merge-system-config';
import { pyyamlDump } from '../config/pyyaml-dump';
import { isConfigMap, parseYamlConfig, type ConfigMap } from '../config/parse-yaml-config';

export interface CloudConfigLayers {
  system: ConfigMap;
  datasource?: ConfigMap | undefined;
  vendor?: ConfigMap | undefined;
  vendor2?: ConfigMap | undefined;
  user?: ConfigMap | undefined;
}

/**
 * `vendor_data: {enabled: false}` (bool or the strings cloud-init accepts) in system or user config turns vendor data
 * off.
 */
export function vendorDataEnabled(system: ConfigMap, user: ConfigMap | undefined): boolean {
  for (const layer of [user, system]) {
    const vd = layer?.vendor_data;
    if (isConfigMap(vd) && vd.enabled !== undefined) {
      const e = vd.enabled;
      return !(e === false || (typeof e === 'string' && /^(false|no|off|0)$/i.test(e)));
    }
  }
  return true;
}

export function mergeCloudConfig(layers: CloudConfigLayers): ConfigMap {
  let out = layers.system;
  if (layers.datasource) out = mergeSystemConfig(out, layers.datasource);
  if (vendorDataEnabled(layers.system, layers.user)) {
    if (layers.vendor) out = mergeSystemConfig(out, layers.vendor);
    if (layers.vendor2) out = mergeSystemConfig(out, layers.vendor2);
  }
  if (layers.user) out = mergeSystemConfig(out, layers.user);
  return out;
}

/**
 * instances/<iid>/cloud-config.txt and friends as cloud-init 22.4's cloud-config part handler writes them: the
 * '#cloud-config' line, the names of the parts merged, then the YAML as PyYAML's dump (explicit start and end);
 * an empty file when no cloud-config part was given.
 */
export function formatCloudConfigFile(cfg: ConfigMap | undefined, partNames: string[]): string {
  const body = cfg ?? {};
  // A processor that does not name its parts still gets its config kept (no part list then).
  if (partNames.length === 0 && Object.keys(body).length === 0) return '';
  const lines = ['#cloud-config', ''];
  if (partNames.length > 0)
    lines.push(
      `# from ${partNames.length} files`,
      ...partNames.map((n) => `# ${n.replace(/[\n\r\t]/g, ' ').trim() || '?'}`),
      '',
    );
  lines.push(Object.keys(body).length === 0 ? '--- {}\n...\n' : `---\n${pyyamlDump(body)}...\n`);
  return lines.join('\n');
}

export function parseCloudConfigFile(text: string, file: string): ConfigMap {
  return parseYamlConfig(text, file);
}
