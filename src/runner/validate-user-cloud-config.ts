// The init stage's check of the user's cloud-config against the schema, as cloud-init 25.1's main_init does once it
// has consumed the user data: the instance's cloud-config.txt, when not empty, is validated; deprecations are logged
// at DEPRECATED and errors as one WARNING without details (user data may hold secrets; `schema --system` shows them).
// Both are recoverable errors of the stage, so a boot with either ends `degraded done`. Nothing stops: every module
// still runs.
import { loadCloudConfigValidator } from '../config/load-validators';
import type { Log } from '../util/log';

/** TEXT, cloud-config.txt as this boot wrote it, checked; what is wrong goes to LOG. */
export async function validateUserCloudConfig(text: string, log: Log): Promise<void> {
  if (text.length === 0) {
    log.debug('Skipping user-data validation. No user-data found.');
    return;
  }
  const { validateCloudConfig } = await loadCloudConfigValidator();
  const result = validateCloudConfig(text, { requireHeader: false });
  // cloud-init reads the file back as YAML first; kiln wrote it, so it cannot fail to parse short of a bug.
  if (result.fatal !== undefined) {
    log.warn(
      `cloud-config failed schema validation! You may run 'sudo cloud-init schema --system' to check the details.`,
    );
    return;
  }
  const deprecations = result.problems.filter((p) => p.kind === 'deprecation');
  if (deprecations.length > 0)
    log.deprecated(
      `Deprecated cloud-config provided: ${deprecations.map((p) => `${p.path}: ${p.message}`).join(', ')}`,
    );
  if (result.problems.some((p) => p.kind === 'error')) {
    log.warn(
      `cloud-config failed schema validation! You may run 'sudo cloud-init schema --system' to check the details.`,
    );
  }
}
