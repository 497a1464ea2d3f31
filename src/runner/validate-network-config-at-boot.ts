// The network config a boot applies, checked against the network-config schema as cloud-init 25.1's
// Init.apply_network_config does before rendering it (validate_cloudconfig_schema, strict=False, without details:
// the config may hold wifi passwords): errors are one WARNING, deprecations one DEPRECATED line; the config is
// applied all the same, as kiln's parsers accept what cloud-init renders.
import { loadNetworkConfigValidator } from '../config/load-validators';
import type { Log } from '../util/log';

/** CONFIG, the v1 or v2 network config about to be applied, checked; what is wrong goes to LOG. */
export async function validateNetworkConfigAtBoot(config: unknown, log: Log): Promise<void> {
  const { validateNetworkConfig } = await loadNetworkConfigValidator();
  // JSON is YAML: the config as the schema reads it (positions do not matter, no detail is logged).
  const result = validateNetworkConfig(JSON.stringify(config));
  if (result.skipped !== undefined) return;
  const deprecations = result.problems.filter((p) => p.kind === 'deprecation');
  if (deprecations.length > 0)
    log.deprecated(
      `Deprecated cloud-config provided: ${deprecations.map((p) => `${p.path}: ${p.message}`).join(', ')}`,
    );
  if (result.fatal !== undefined || result.problems.some((p) => p.kind === 'error')) {
    log.warn(
      `network-config failed schema validation! You may run 'sudo cloud-init schema --system' to check the details.`,
    );
  }
}
