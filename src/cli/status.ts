// `status [--wait] [--long] [--format tabular|json|yaml]`: the boot's state, exit 0 done, 1 error, 2 degraded.
import { stringify } from 'yaml';
import { statusExitCode, type BootStatus } from '../runner/boot-status';
import { readBootStatus } from '../runner/read-boot-status';
import { UsageError } from '../util/errors';
import type { Command } from './command';
import { timersPromises } from '../util/on-demand-builtins';

function rfc2822(seconds: number | undefined): string {
  if (seconds === undefined) return '';
  return new Date(seconds * 1000).toUTCString().replace('GMT', '+0000');
}

function asDocument(s: BootStatus): Record<string, unknown> {
  return {
    _schema_version: '1',
    boot_status_code: s.boot_status_code,
    datasource: s.datasource,
    detail: s.detail,
    errors: s.errors,
    extended_status: s.extended_status,
    last_update: rfc2822(s.lastUpdate),
    recoverable_errors: s.recoverable_errors,
    stage: s.stage,
    status: s.status,
    ...(s.stages ? { 'init-local': s.stages['init-local'], init: s.stages.init, 'modules-config': s.stages['modules-config'], 'modules-final': s.stages['modules-final'] } : {}),
  };
}

export function formatTabular(s: BootStatus, long: boolean): string {
  const lines = [`status: ${s.status}`];
  if (long) {
    lines.push(`extended_status: ${s.extended_status}`, `boot_status_code: ${s.boot_status_code}`);
    if (s.lastUpdate !== undefined) lines.push(`last_update: ${rfc2822(s.lastUpdate)}`);
    lines.push(`detail: ${s.detail}`);
    lines.push(s.errors.length ? `errors:\n${s.errors.map((e) => `\t- ${e}`).join('\n')}` : 'errors: []');
    const rec = Object.entries(s.recoverable_errors).filter(([, l]) => l.length);
    lines.push(rec.length ? `recoverable_errors:\n${rec.map(([lvl, l]) => `${lvl}:\n${l.map((m) => `\t- ${m}`).join('\n')}`).join('\n')}` : 'recoverable_errors: {}');
  }
  return `${lines.join('\n')}\n`;
}

export const statusCommand: Command = {
  words: ['status'],
  summary: 'report the state of the boot: not started, running, done, error, disabled',
  usage: 'status [--wait] [--long] [--format tabular|json|yaml]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    boolean: ['wait', 'long'],
    string: ['format'],
    alias: { w: 'wait', l: 'long' },
    help: [
      '-w, --wait       wait until the boot has finished (prints a dot per poll)',
      '-l, --long       more detail: extended status, datasource, errors',
      '--format F       tabular (default), json or yaml',
    ],
  },
  async run(ctx, args) {
    const format = (args.flags.format as string | undefined) ?? 'tabular';
    if (!['tabular', 'json', 'yaml'].includes(format)) throw new UsageError(`--format must be tabular, json or yaml, not '${format}'`);
    const platform = ctx.platform();
    const embedded = ctx.facts.defaultCloudConfig;
    const pollMs = Number(ctx.env.KILN_STATUS_POLL_MS ?? 250);
    let s = await readBootStatus(platform, embedded);
    if (args.flags.wait) {
      while (s.status === 'not started' || s.status === 'running') {
        if (format === 'tabular') ctx.io.out('.');
        await timersPromises().setTimeout(pollMs);
        s = await readBootStatus(platform, embedded);
      }
      if (format === 'tabular') ctx.io.out('\n');
    }
    if (format === 'json') ctx.io.out(`${JSON.stringify(asDocument(s), null, 2)}\n`);
    else if (format === 'yaml') ctx.io.out(stringify(asDocument(s)));
    else ctx.io.out(formatTabular(s, args.flags.long === true));
    return statusExitCode(s);
  },
};
