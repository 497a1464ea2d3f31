// cc_rsyslog's old format, deprecated since 22.2: `rsyslog` a list of configs, whose file name and directory are the
// top-level keys rsyslog_filename and rsyslog_dir. 25.1's schema has neither key (nor a list for `rsyslog`), yet
// load_config still reads them from the whole config: with its deprecation (lifecycle.deprecate, at the DEPRECATED
// level), the list and those two keys become the mapping of the documented format, which the module then reads as
// any other.
import type { CloudConfig, Module } from '../module';

/** The deprecation 25.1 logs for a list `rsyslog` (deprecated in 22.2, removal scheduled five years on). */
export const RSYSLOG_LIST_DEPRECATION =
  "The rsyslog key with value of type 'list' is deprecated in 22.2 and scheduled to be removed in 27.2.";

/** CFG with a list `rsyslog` made into the mapping load_config makes of it (DEPRECATE gets the deprecation). */
export function foldRsyslogList(cfg: CloudConfig, deprecate: (message: string) => void): CloudConfig {
  const list = cfg.rsyslog;
  if (!Array.isArray(list)) return cfg;
  deprecate(RSYSLOG_LIST_DEPRECATION);
  const mapping: Record<string, unknown> = { configs: list };
  if (Object.hasOwn(cfg, 'rsyslog_filename')) mapping.config_filename = cfg.rsyslog_filename;
  if (Object.hasOwn(cfg, 'rsyslog_dir')) mapping.config_dir = cfg.rsyslog_dir;
  return { ...cfg, rsyslog: mapping };
}

/** MODULE (made by configModule) with a list `rsyslog` folded into its mapping first (foldRsyslogList). */
export function readingRsyslogList(module: Module): Module {
  return {
    ...module,
    run: (ctx, cfg) =>
      module.run(
        ctx,
        foldRsyslogList(cfg, (m) => ctx.log.deprecated(m)),
      ),
  };
}
