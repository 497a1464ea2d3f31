// `features`: the feature flags this build has, one per line, as cloud-init lists them.
import type { Command } from './command';

/** cloud-init's feature flags and kiln's values for them. */
export const FEATURES: Record<string, boolean> = {
  ERROR_ON_USER_DATA_FAILURE: true,
  ALLOW_EC2_MIRRORS_ON_NON_AWS_INSTANCE_TYPES: false,
  EXPIRE_APPLIES_TO_HASHED_USERS: true,
  NETPLAN_CONFIG_ROOT_READ_ONLY: true,
  NOCLOUD_SEED_URL_APPEND_FORWARD_SLASH: true,
  APT_DEB822_SOURCE_LIST_FILE: true,
  MANUAL_NETWORK_WAIT: true,
};

export const featuresCommand: Command = {
  words: ['features'],
  summary: 'list the feature flags of this build',
  usage: 'features',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {},
  async run(ctx) {
    ctx.io.out(`${Object.entries(FEATURES).filter(([, on]) => on).map(([k]) => k).join('\n')}\n`);
    return 0;
  },
};
