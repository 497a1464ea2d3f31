// `status [--wait] [--long] [--format tabular|json|yaml]`: the boot's state; exit 1 on errors, 2 on recoverable errors
// only, else 0.
import { pyyamlDump } from '../config/pyyaml-dump';
import { statusExitCode, type BootStatus } from '../runner/boot-status';
import { readBootStatus } from '../runner/read-boot-status';
import { UsageError } from '../util/errors';
import type { Command, CommandContext } from './command';
import { monotonicMs } from '../util/monotonic-clock';
import { timersPromises } from '../util/on-demand-builtins';

/** cloud-init's `%a, %d %b %Y %H:%M:%S %z` in UTC; '' before any stage has run. */
function rfc2822(seconds: number | undefined): string {
  if (seconds === undefined) return '';
  return new Date(seconds * 1000).toUTCString().replace('GMT', '+0000');
}

/**
 * The document of `--format json|yaml`, with cloud-init's keys: its eight fields, then status.json's v1 (stage, each
 * stage's record).
 */
export function statusDocument(s: BootStatus): Record<string, unknown> {
  return {
    datasource: s.datasource,
    boot_status_code: s.boot_status_code,
    status: s.status,
    extended_status: s.extended_status,
    detail: s.detail,
    errors: s.errors,
    recoverable_errors: s.recoverable_errors,
    last_update: rfc2822(s.lastUpdate),
    ...s.v1,
  };
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v as Record<string, unknown>)
      .sort()
      .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
  );
}

/** As cloud-init prints it: json.dumps(indent=2, sort_keys=True). */
export function formatJson(s: BootStatus): string {
  return `${JSON.stringify(sortKeys(statusDocument(s)), null, 2)}\n`;
}

/**
 * As cloud-init prints safeyaml.dumps: PyYAML's block style (indent 4, keys sorted, its quoting and line folding),
 * `---` and `...` around the document, and print's own line break after the document's.
 */
export function formatYaml(s: BootStatus): string {
  return `---\n${pyyamlDump(statusDocument(s))}...\n\n`;
}

export function formatTabular(s: BootStatus, long: boolean): string {
  const lines = [`status: ${s.status}`];
  if (long) {
    lines.push(`extended_status: ${s.extended_status}`, `boot_status_code: ${s.boot_status_code}`);
    if (s.lastUpdate !== undefined) lines.push(`last_update: ${rfc2822(s.lastUpdate)}`);
    lines.push(`detail: ${s.detail}`);
    lines.push(s.errors.length ? `errors:\n${s.errors.map((e) => `\t- ${e}`).join('\n')}` : 'errors: []');
    const rec = Object.entries(s.recoverable_errors);
    // A message over several lines is shown on one, as cloud-init does.
    lines.push(
      rec.length
        ? `recoverable_errors:\n${rec.map(([lvl, l]) => `${lvl}:\n\t- ${l.map((m) => m.replace(/\n/g, ' ')).join('\n\t- ')}`).join('\n')}`
        : 'recoverable_errors: {}',
    );
  }
  return `${lines.join('\n')}\n`;
}

export const statusCommand: Command = {
  words: ['status'],
  summary: 'report the state of the boot: not started, running, done, error, disabled',
  usage: 'status [--wait [--timeout SECONDS]] [--long] [--format tabular|json|yaml]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    boolean: ['wait', 'long'],
    string: ['format', 'timeout'],
    alias: { w: 'wait', l: 'long' },
    help: [
      '-w, --wait       wait until the boot has finished (prints a dot per poll)',
      '--timeout S      with --wait: give up after S seconds, print the status so far and exit 1 (kiln only;',
      '                 cloud-init waits without a limit)',
      '-l, --long       more detail: extended status, datasource, errors',
      '--format F       tabular (default), json or yaml',
    ],
  },
  async run(ctx, args) {
    const format = (args.flags.format as string | undefined) ?? 'tabular';
    if (!['tabular', 'json', 'yaml'].includes(format))
      throw new UsageError(`--format must be tabular, json or yaml, not '${format}'`);
    const timeoutText = args.flags.timeout as string | undefined;
    const timeout = timeoutText === undefined ? undefined : Number(timeoutText);
    if (timeout !== undefined && !(timeout > 0))
      throw new UsageError(`--timeout takes a number of seconds above 0, not '${timeoutText}'`);
    if (timeout !== undefined && !args.flags.wait) throw new UsageError('--timeout limits --wait; give both');
    const platform = ctx.platform();
    const embedded = ctx.facts.defaultCloudConfig;
    const pollMs = Number(ctx.env.KILN_STATUS_POLL_MS ?? 250);
    // As cloud-init: a stage unit systemd says failed makes a running boot an error (on a live systemd only).
    const systemd = {
      wait: args.flags.wait === true,
      warn: (line: string) => ctx.io.err(`${line}\n`),
      retryMs: pollMs,
    };
    let s = await readBootStatus(platform, embedded, undefined, systemd);
    if (args.flags.wait) {
      // cloud-init 24.4 and later print the status right after the dots, on the same line.
      const deadline = timeout === undefined ? undefined : monotonicMs() + timeout * 1000;
      while (s.running === 'not started' || s.running === 'running') {
        if (deadline !== undefined && monotonicMs() >= deadline) {
          if (format === 'tabular') ctx.io.out('\n');
          ctx.io.err(`status --wait: the boot has not finished after ${timeout} s (${s.running})\n`);
          printStatus(ctx, s, format, args.flags.long === true);
          return 1;
        }
        if (format === 'tabular') ctx.io.out('.');
        await timersPromises().setTimeout(
          deadline === undefined ? pollMs : Math.max(0, Math.min(pollMs, deadline - monotonicMs())),
        );
        s = await readBootStatus(platform, embedded, undefined, systemd);
      }
    }
    printStatus(ctx, s, format, args.flags.long === true);
    return statusExitCode(s);
  },
};

function printStatus(ctx: CommandContext, s: BootStatus, format: string, long: boolean): void {
  if (format === 'json') ctx.io.out(formatJson(s));
  else if (format === 'yaml') ctx.io.out(formatYaml(s));
  else ctx.io.out(formatTabular(s, long));
}
