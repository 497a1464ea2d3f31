// `devel ds-identify`: kiln's ds-identify; exit 0 when a datasource may be present, 1 when none can be (the generator asks).
import { defaultRunnerDeps } from '../runner/default-deps';
import { detectSources, readDmi } from '../runner/find-datasource';
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
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
    const rc = await loadRunConfig(platform, ctx.facts.defaultConfigs['cloud.cfg'], await readKernelCmdline(platform));
    if (rc.disabledBy) {
      if (!args.flags.quiet) ctx.io.out(`disabled (${rc.disabledBy})\n`);
      return 1;
    }
    const deps = defaultRunnerDeps({ platform, embeddedConfig: ctx.facts.defaultConfigs['cloud.cfg'], version: ctx.facts.version, env: ctx.env });
    const names = new Set((Array.isArray(rc.config.datasource_list) ? rc.config.datasource_list : [rc.config.datasource_list]).map(String));
    // None is always "present"; it does not justify starting kiln on its own.
    const candidates = deps.sources.filter((s) => names.has(s.name) && s.name !== 'None');
    const found = await detectSources({ platform, log: ctx.log, config: rc.config, kernelCmdline: rc.kernelCmdline, dmi: await readDmi(platform), finder: deps.finder, candidates });
    if (!args.flags.quiet) ctx.io.out(found.length ? `found: ${found.join(', ')}\n` : 'found: none\n');
    return found.length ? 0 : 1;
  },
};
