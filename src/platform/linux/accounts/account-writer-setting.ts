// system_info.kiln_account_writer: whether kiln writes the account files itself ('in-process', the default) or
// leaves every account change to the distro's tools (useradd, groupadd, usermod, passwd, chpasswd) as cloud-init does.
import { PlatformError } from '../../../util/errors';

export type AccountWriter = 'in-process' | 'tools';

const KEY = 'system_info.kiln_account_writer';

/** The setting in the merged config CFG; 'in-process' when not set. */
export function accountWriterSetting(cfg: Record<string, unknown>): AccountWriter {
  const sys = cfg.system_info;
  const value =
    sys !== null && typeof sys === 'object' && !Array.isArray(sys)
      ? (sys as Record<string, unknown>).kiln_account_writer
      : undefined;
  if (value === undefined || value === null) return 'in-process';
  if (value === 'in-process' || value === 'tools') return value;
  throw new PlatformError(`${KEY} must be 'in-process' or 'tools', not ${JSON.stringify(value)}`);
}
