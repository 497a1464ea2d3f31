// `devel ds-identify`: kiln's ds-identify; exit 0 when a datasource may be present, 1 when none can be (the generator
// asks).
import { createLinuxFinder } from '../devices/create-finder';
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
import { buildDetectContext, detectSources } from '../sources/detect';
import type { Command } from './command';

export const dsIdentifyCommand: Command = {
  words: ['devel', 'ds-identify'],
  summary: 'detect which datasources may be present (no network); exit 1 when none can be',
  usage: 'devel ds-identify [--quiet]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: { boolean: ['quiet'], alias: { q: 'quiet' }, help: ['-q, --quiet   print nothing; the exit code tells'] },
  async run(ctx, args) {
    const platform = ctx.platform();
    const rc = await loadRunConfig(platform, ctx.facts.defaultCloudConfig, await readKernelCmdline(platform));
    if (rc.disabledBy) {
      if (!args.flags.quiet) ctx.io.out(`disabled (${rc.disabledBy})\n`);
      return 1;
    }
    const dctx = await buildDetectContext({
      platform,
      log: ctx.log,
      config: rc.config,
      finder: createLinuxFinder(platform.root, ctx.env, ctx.log),
      kernelCmdline: rc.kernelCmdline,
      env: ctx.env,
    });
    const detection = await detectSources(dctx);
    // None alone does not justify starting kiln: there is nothing to configure the instance from.
    const real = detection.candidates.filter((c) => c.name !== 'None').map((c) => c.name);
    if (!args.flags.quiet)
      ctx.io.out(`${real.length ? `found: ${real.join(', ')}` : 'found: none'} (${detection.reason})\n`);
    return real.length ? 0 : 1;
  },
};
