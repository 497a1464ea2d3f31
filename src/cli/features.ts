// `features`: the feature flags this build has, one per line, as cloud-init lists them.
import { FEATURES } from '../config/feature-flags';
import type { Command } from './command';

export const featuresCommand: Command = {
  words: ['features'],
  summary: 'list the feature flags of this build',
  usage: 'features',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {},
  async run(ctx) {
    ctx.io.out(
      `${Object.entries(FEATURES)
        .filter(([, on]) => on)
        .map(([k]) => k)
        .join('\n')}\n`,
    );
    return 0;
  },
};
