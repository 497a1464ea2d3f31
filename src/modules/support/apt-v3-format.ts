// cc_apt_configure's old formats, deprecated since 22.1: the top-level apt_* keys (v2) and a list apt_sources (v1).
// 25.1's schema has none of those keys, yet convert_to_v3_apt_format reads them from the whole config before the
// module reads `apt`: with its deprecation warnings, they become the `apt` mapping of the documented format (v3),
// which the module then reads as any other.
import { isRecord } from './config-shapes';
import { type CloudConfig, type Module, ModuleError } from '../module';

const MODULE = 'apt_configure';

/** convert_to_v3_apt_format: old top-level apt_* keys and the v1 apt_sources list become `apt:`. */
export function convertToV3(cfgIn: CloudConfig, warn: (m: string) => void): CloudConfig {
  const cfg: CloudConfig = { ...cfgIn };
  if (cfg.apt_sources !== undefined && cfg.apt_sources !== null) {
    warn("DEPRECATION: 'apt_sources' deprecated config key found. Use 'apt' instead");
    if (Array.isArray(cfg.apt_sources)) {
      const dict: Record<string, unknown> = {};
      let n = 0;
      for (const ent of cfg.apt_sources) {
        if (!isRecord(ent)) continue;
        const key =
          typeof ent.filename === 'string'
            ? ent.filename
            : n++ === 0
              ? 'cloud_config_sources.list'
              : `cloud_config_sources.list_${n}`;
        dict[key] = { filename: 'cloud_config_sources.list', ...ent };
      }
      cfg.apt_sources = dict;
    } else if (!isRecord(cfg.apt_sources)) throw new ModuleError(MODULE, 'unknown apt_sources format');
  }
  const map: Record<string, string | null> = {
    apt_sources: 'sources',
    apt_mirror: null,
    apt_mirror_search: null,
    apt_mirror_search_dns: null,
    apt_proxy: 'proxy',
    apt_http_proxy: 'http_proxy',
    apt_ftp_proxy: 'https_proxy',
    apt_https_proxy: 'ftp_proxy',
    apt_preserve_sources_list: 'preserve_sources_list',
    apt_custom_sources_list: 'sources_list',
    add_apt_repo_match: 'add_apt_repo_match',
  };
  const present = Object.keys(map).filter((k) => k in cfg && cfg[k] !== null && cfg[k] !== '');
  for (const k of Object.keys(map)) if (k in cfg && (cfg[k] === null || cfg[k] === '')) delete cfg[k];
  if (present.length === 0) return cfg;
  warn(
    `DEPRECATION apt: converted deprecated config V2 to V3 format for keys '${present.join(', ')}'. Use updated config keys.`,
  );
  if (isRecord(cfg.apt)) {
    for (const k of present) {
      const nk = map[k];
      const old = cfg[k];
      delete cfg[k];
      if (!nk || cfg.apt[nk] === undefined || cfg.apt[nk] === null) continue;
      if (JSON.stringify(old) !== JSON.stringify(cfg.apt[nk]))
        throw new ModuleError(MODULE, `Old and New apt format defined with unequal values for ${k}`);
    }
    return cfg;
  }
  const apt: Record<string, unknown> = {};
  for (const k of present) {
    const nk = map[k];
    if (nk) apt[nk] = cfg[k];
  }
  const mirror: Record<string, unknown> = { arches: ['default'] };
  let hasMirror = false;
  for (const [ok, nk] of [
    ['apt_mirror', 'uri'],
    ['apt_mirror_search', 'search'],
    ['apt_mirror_search_dns', 'search_dns'],
  ] as const) {
    if (cfg[ok] !== undefined) {
      mirror[nk] = cfg[ok];
      hasMirror = true;
    }
  }
  if (hasMirror) apt.primary = [mirror];
  for (const k of present) delete cfg[k];
  cfg.apt = apt;
  return cfg;
}

/** MODULE (made by configModule) with the old apt formats converted to `apt` first (convertToV3). */
export function readingAptV3(module: Module): Module {
  return {
    ...module,
    run: (ctx, cfg) =>
      module.run(
        ctx,
        convertToV3(cfg, (m) => ctx.log.warn(m)),
      ),
  };
}
