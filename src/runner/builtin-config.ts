// cloud-init's built-in config (settings.CFG_BUILTIN), which lies under /etc/cloud/cloud.cfg in its merged config.
import { isConfigMap, type ConfigMap } from '../config/parse-yaml-config';

/** 25.1's CFG_BUILTIN, less datasource_list (kiln's embedded cloud.cfg and the target's own name the sources). */
export const BUILTIN_CONFIG: ConfigMap = {
  def_log_file: '/var/log/cloud-init.log',
  log_cfgs: [],
  syslog_fix_perms: ['syslog:adm', 'root:adm', 'root:wheel', 'root:root'],
  system_info: {
    paths: {
      cloud_dir: '/var/lib/cloud',
      docs_dir: '/usr/share/doc/cloud-init/',
      templates_dir: '/etc/cloud/templates/',
    },
    distro: 'ubuntu',
    network: { renderers: null },
  },
  vendor_data: { enabled: true, prefix: [] },
  vendor_data2: { enabled: true, prefix: [] },
};

/** Fills what OVER lacks from UNDER, mappings recursively (cloud-init's mergemanydict, first wins). */
export function underlay(over: ConfigMap, under: ConfigMap): ConfigMap {
  const out: ConfigMap = { ...over };
  for (const [k, v] of Object.entries(under)) {
    const cur = out[k];
    if (cur === undefined) out[k] = v;
    else if (isConfigMap(cur) && isConfigMap(v)) out[k] = underlay(cur, v);
  }
  return out;
}

/** CONFIG with the built-ins under it, as cloud-init's Init.cfg has it. */
export function withBuiltins(config: ConfigMap): ConfigMap {
  return underlay(config, BUILTIN_CONFIG);
}
