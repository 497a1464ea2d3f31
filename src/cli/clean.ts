// `clean [--logs] [--machine-id] [--seed] [--reboot] [--configs …]`: what image builders run before capture.
import { CLEAN_CONFIG_KINDS, cleanArtifacts, runCleanScripts, type CleanConfigKind } from '../runner/clean-artifacts';
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
import { UsageError } from '../util/errors';
import type { Command } from './command';

export function parseConfigKinds(values: string[]): CleanConfigKind[] {
  const out = new Set<CleanConfigKind>();
  for (const v of values
    .flatMap((x) => x.split(','))
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (v === 'all') for (const k of CLEAN_CONFIG_KINDS) out.add(k);
    else if ((CLEAN_CONFIG_KINDS as string[]).includes(v)) out.add(v as CleanConfigKind);
    else throw new UsageError(`--configs takes all, ${CLEAN_CONFIG_KINDS.join(', ')}; not '${v}'`);
  }
  return [...out];
}

export const cleanCommand: Command = {
  words: ['clean'],
  summary: 'remove logs and artifacts so cloud-init re-runs on the next boot (run before capturing an image)',
  usage: 'clean [--logs] [--machine-id] [--seed] [--reboot] [--configs all|ssh_config|network|datasource|fstab …]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    boolean: ['logs', 'machine-id', 'seed', 'reboot'],
    string: ['configs'],
    repeatable: ['configs'],
    greedy: ['configs'],
    alias: { l: 'logs', s: 'seed', r: 'reboot', c: 'configs' },
    help: [
      '-l, --logs        also remove /var/log/cloud-init.log and cloud-init-output.log',
      '--machine-id      set /etc/machine-id to "uninitialized" (removed where there is no systemd)',
      '-s, --seed        also remove /var/lib/cloud/seed',
      '-r, --reboot      reboot after cleaning',
      '-c, --configs KIND  remove generated config too: all, ssh_config, network, datasource, fstab (several after one flag, as 25.1, or repeated)',
    ],
  },
  async run(ctx, args) {
    const configs = parseConfigKinds((args.flags.configs as string[] | undefined) ?? []);
    const platform = ctx.platform();
    const rc = await loadRunConfig(platform, ctx.facts.defaultCloudConfig, await readKernelCmdline(platform));
    const out = await cleanArtifacts({
      platform,
      paths: rc.paths,
      log: ctx.log,
      logs: args.flags.logs === true,
      seed: args.flags.seed === true,
      machineId: args.flags['machine-id'] === true,
      configs,
    });
    const errors = [...out.errors, ...(await runCleanScripts(platform, ctx.log))];
    for (const e of errors) ctx.io.err(`Error:\n${e}\n`);
    if (errors.length) return 1;
    if (args.flags.reboot) await platform.run(['shutdown', '-r', 'now']);
    return 0;
  },
};
