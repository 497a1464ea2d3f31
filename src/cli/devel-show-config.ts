// `devel show-config`: the merged system config (embedded defaults overridden by files in --root).
import { stringify } from 'yaml';
import { loadSystemConfig } from '../config/load-system-config';
import { UsageError } from '../util/errors';
import type { Command } from './command';

export const develShowConfigCommand: Command = {
  words: ['devel', 'show-config'],
  summary: 'print the system config in effect: embedded defaults merged with the files on disk',
  usage: 'devel show-config [--embedded] [--format yaml|json] [--name cloud.cfg|cloudbase-init.conf]',
  faces: ['kiln', 'cloud-init', 'cloudbase-init'],
  positional: [0, 0],
  flags: {
    boolean: ['embedded'],
    string: ['format', 'name'],
    help: [
      '--embedded      print the defaults built into this binary, untouched',
      '--format F      yaml (default) or json',
      '--name N        which embedded file with --embedded (default: cloud.cfg, or cloudbase-init.conf for cloudbase-init)',
    ],
  },
  async run(ctx, args) {
    const format = (args.flags.format as string | undefined) ?? 'yaml';
    if (format !== 'yaml' && format !== 'json') throw new UsageError(`--format must be yaml or json, not '${format}'`);
    const configs = ctx.facts.defaultConfigs;
    if (args.flags.embedded) {
      const name =
        (args.flags.name as string | undefined) ??
        (ctx.face === 'cloudbase-init' ? 'cloudbase-init.conf' : 'cloud.cfg');
      const text = configs[name];
      if (text === undefined)
        throw new UsageError(
          `no embedded config named '${name}' in this build; it has: ${Object.keys(configs).join(', ')}`,
        );
      ctx.io.out(text);
      return 0;
    }
    const loaded = await loadSystemConfig(ctx.platform(), ctx.facts.defaultCloudConfig);
    ctx.log.debug(`system config layers: ${loaded.sources.join(', ')}`);
    ctx.io.out(format === 'json' ? `${JSON.stringify(loaded.config, null, 2)}\n` : stringify(loaded.config));
    return 0;
  },
};
