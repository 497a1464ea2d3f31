// cloud-init's feature flags (cloudinit/features.py) as kiln sets them: listed by `features`, recorded in
// combined-cloud-config.json and instance-data-sensitive.json.

/** cloud-init's boolean feature flags and kiln's values for them. */
export const FEATURES: Record<string, boolean> = {
  ERROR_ON_USER_DATA_FAILURE: true,
  ALLOW_EC2_MIRRORS_ON_NON_AWS_INSTANCE_TYPES: false,
  EXPIRE_APPLIES_TO_HASHED_USERS: true,
  NETPLAN_CONFIG_ROOT_READ_ONLY: true,
  NOCLOUD_SEED_URL_APPEND_FORWARD_SLASH: true,
  APT_DEB822_SOURCE_LIST_FILE: true,
  MANUAL_NETWORK_WAIT: true,
};

/** The version from which deprecations are logged above INFO; 'devel' logs them all (25.1's default). */
export const DEPRECATION_INFO_BOUNDARY = 'devel';

/** Every flag, as 25.1's features.get_features() gives them (the boolean ones and DEPRECATION_INFO_BOUNDARY). */
export function allFeatures(): Record<string, boolean | string> {
  return { ...FEATURES, DEPRECATION_INFO_BOUNDARY };
}
