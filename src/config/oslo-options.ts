// The [DEFAULT] options oslo.log and oslo.config register for cloudbase-init beside its own
// (cloudbaseinit/conf/__init__.py calls oslo.log's register_options).
import type { OptionSpec } from './option-spec';

/**
 * oslo.log's options (oslo_log/_options.py: common_cli_opts, logging_cli_opts, generic_log_opts, log_opts and
 * versionutils' fatal_deprecations), under the names a file sets them by (an option called `log-file` is read from
 * a file as `log_file`). The last group is what older oslo.log releases, as bundled by cloudbase-init installers
 * still in use, also registered: a file written for them must not be reported as wrong.
 */
export const OSLO_LOG_OPTIONS: Record<string, OptionSpec> = {
  debug: { type: 'bool', default: false },
  log_config_append: { type: 'str', default: undefined },
  log_date_format: { type: 'str', default: '%Y-%m-%d %H:%M:%S' },
  log_file: { type: 'str', default: undefined },
  log_dir: { type: 'str', default: undefined },
  use_syslog: { type: 'bool', default: false },
  use_journal: { type: 'bool', default: false },
  syslog_log_facility: { type: 'str', default: 'LOG_USER' },
  use_json: { type: 'bool', default: false },
  use_stderr: { type: 'bool', default: false },
  log_color: { type: 'bool', default: false },
  log_rotate_interval: { type: 'int', default: 1 },
  log_rotate_interval_type: { type: 'str', default: 'days' },
  max_logfile_count: { type: 'int', default: 30 },
  max_logfile_size_mb: { type: 'int', default: 200 },
  log_rotation_type: { type: 'str', default: 'none' },
  logging_context_format_string: { type: 'str', default: undefined },
  logging_default_format_string: { type: 'str', default: undefined },
  logging_debug_format_suffix: { type: 'str', default: undefined },
  logging_exception_prefix: { type: 'str', default: undefined },
  logging_user_identity_format: { type: 'str', default: undefined },
  default_log_levels: { type: 'list', default: [] },
  publish_errors: { type: 'bool', default: false },
  instance_format: { type: 'str', default: '[instance: %(uuid)s] ' },
  instance_uuid_format: { type: 'str', default: '[instance: %(uuid)s] ' },
  rate_limit_interval: { type: 'int', default: 0 },
  rate_limit_burst: { type: 'int', default: 0 },
  rate_limit_except_level: { type: 'str', default: 'CRITICAL' },
  fatal_deprecations: { type: 'bool', default: false },
  // Older oslo.log releases: verbose (until 2017), log_format and use_syslog_rfc_format (until 2016),
  // watch_log_file (until 2025), use_eventlog (2018–2024).
  verbose: { type: 'bool', default: false },
  log_format: { type: 'str', default: undefined },
  use_syslog_rfc_format: { type: 'bool', default: false },
  watch_log_file: { type: 'bool', default: false },
  use_eventlog: { type: 'bool', default: false },
};

/**
 * oslo.config's own: `config_file` and `config_dir` are command-line options (kiln takes `--config-file`) that a
 * file may still name, and `config_source` lists groups for configuration from elsewhere than files.
 */
export const OSLO_CONFIG_OPTIONS: Record<string, OptionSpec> = {
  config_file: { type: 'list', default: [] },
  config_dir: { type: 'list', default: [] },
  config_source: { type: 'list', default: [] },
};
