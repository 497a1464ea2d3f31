// The cloud-config modules see: system config < datasource config < vendor data < user data.
import { stringify } from 'yaml';
import { mergeSystemConfig } from '../config/merge-system-config';
import { isConfigMap, parseYamlConfig, type ConfigMap } from '../config/parse-yaml-config';

export interface CloudConfigLayers {
  system: ConfigMap;
  datasource?: ConfigMap | undefined;
  vendor?: ConfigMap | undefined;
  vendor2?: ConfigMap | undefined;
  user?: ConfigMap | undefined;
}

/** `vendor_data: {enabled: false}` (bool or the strings cloud-init accepts) in system or user config turns vendor data off. */
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

/** instances/<iid>/cloud-config.txt and friends: '#cloud-config' YAML, as cloud-init keeps them. */
export function formatCloudConfigFile(cfg: ConfigMap): string {
  return `#cloud-config\n${Object.keys(cfg).length ? stringify(cfg) : ''}`;
}

export function parseCloudConfigFile(text: string, file: string): ConfigMap {
  return parseYamlConfig(text, file);
}
