// `analyze show|blame|dump|boot`: boot timing from kiln's event log or cloud-init's own log (and /proc/uptime for
// `boot`).
import { formatBlame, formatShow, SHOW_FORMAT } from '../runner/analyze-events';
import { readFileSync } from 'node:fs';
import { parseCloudInitLogEvents } from '../runner/cloud-init-log-events';
import { parseEventLog, type BootEvent } from '../runner/event-log';
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
import { sortedJson } from '../runner/sorted-json';
import type { Command, CommandContext, ParsedArgs } from './command';
import { fsPromises } from '../util/on-demand-builtins';
import { writeCommandOutput } from './command-output';
import { describeError } from '../util/errors';

const FLAGS = {
  string: ['infile', 'outfile'],
  alias: { i: 'infile', o: 'outfile' },
  help: [
    "-i, --infile F    cloud-init's own log or kiln's event log to read (default: /var/log/cloud-init.log in the target,",
    '                  else its /var/log/kiln-events.jsonl)',
    '-o, --outfile F   write the report to F instead of stdout',
  ],
};

/**
 * The events of TEXT: kiln's event log (JSON lines), or cloud-init's own log (cloud-init.log, or its lines in syslog
 * or the journal), read as cloud-init's analyze reads it; syslog times have no year, and get this one.
 */
function eventsOf(text: string): BootEvent[] {
  const first = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return first.trimStart().startsWith('{')
    ? parseEventLog(text)
    : parseCloudInitLogEvents(text, new Date().getUTCFullYear());
}

async function loadEvents(
  ctx: CommandContext,
  args: ParsedArgs,
): Promise<{ events: BootEvent[]; source: string } | undefined> {
  const given = args.flags.infile as string | undefined;
  if (given) {
    // '-' is standard input, as for cloud-init's analyze (`journalctl -o short-precise | cloud-init analyze show -i
    // -`).
    const text =
      given === '-'
        ? readFileSync(0, 'utf8')
        : await fsPromises()
            .readFile(given, 'utf8')
            .catch(() => undefined);
    return text === undefined ? undefined : { events: eventsOf(text), source: given };
  }
  // cloud-init.log, as cloud-init 25.1's analyze reads it (its millisecond times give the same figures, and it holds
  // the boots cloud-init made before kiln); kiln's event log when that log is off or gone.
  const platform = ctx.platform();
  const rc = await loadRunConfig(platform, ctx.facts.defaultCloudConfig, await readKernelCmdline(platform));
  for (const file of [rc.paths.logFile, rc.paths.eventLogFile]) {
    const text = await platform.readTextIfExists(file);
    if (text !== undefined) return { events: eventsOf(text), source: file };
  }
  return undefined;
}

async function emit(ctx: CommandContext, args: ParsedArgs, text: string): Promise<void> {
  const out = args.flags.outfile as string | undefined;
  if (out && out !== '-') await writeCommandOutput(ctx, out, text);
  else ctx.io.out(text);
}

/** `show`'s own flag: the line format of each event, with cloud-init's %-keys. */
const SHOW_FLAGS = {
  ...FLAGS,
  string: [...FLAGS.string, 'format'],
  alias: { ...FLAGS.alias, f: 'format' },
  help: [
    `-f, --format F    each event's line (default '${SHOW_FORMAT}'): %I indent, %D description, %E seconds since the`,
    '                  boot began, %d seconds taken, %n name, %e event type, %r result, %o origin, %t timestamp',
    ...FLAGS.help,
  ],
};

function analyzeCommand(
  word: 'show' | 'blame' | 'dump' | 'boot',
  summary: string,
  render: (events: BootEvent[], ctx: CommandContext, args: ParsedArgs) => Promise<string>,
): Command {
  return {
    words: ['analyze', word],
    summary,
    usage: `analyze ${word}${word === 'show' ? ' [--format F]' : ''} [--infile FILE] [--outfile FILE]`,
    faces: ['kiln', 'cloud-init'],
    positional: [0, 0],
    flags: word === 'show' ? SHOW_FLAGS : FLAGS,
    async run(ctx, args) {
      const loaded = await loadEvents(ctx, args);
      if (!loaded) {
        ctx.io.err(
          `Empty file or missing event log: ${(args.flags.infile as string | undefined) ?? '/var/log/cloud-init.log or /var/log/kiln-events.jsonl'}; has cloud-init run?\n`,
        );
        return 1;
      }
      let report: string;
      try {
        report = await render(loaded.events, ctx, args);
      } catch (err) {
        ctx.io.err(`${describeError(err)}\n`);
        return 1;
      }
      await emit(ctx, args, report);
      return 0;
    },
  };
}

export const analyzeShowCommand = analyzeCommand(
  'show',
  'show every stage and module of each boot with its time',
  async (e, _ctx, args) => formatShow(e, (args.flags.format as string | undefined) ?? SHOW_FORMAT),
);
export const analyzeBlameCommand = analyzeCommand(
  'blame',
  'list the modules and steps of each boot, slowest first',
  async (e) => formatBlame(e),
);
// As cloud-init's json_dumps: keys sorted, one-space indent.
export const analyzeDumpCommand = analyzeCommand('dump', 'print the boot events as JSON', async (e) => sortedJson(e));
export const analyzeBootCommand = analyzeCommand(
  'boot',
  'when the kernel started, when kiln started and how long it ran',
  async (events, ctx) => {
    const uptime = (await ctx.platform().hostUptime?.()) ?? 0; // no procfs: 0 seconds
    const kernelStart = Date.now() / 1000 - uptime;
    const starts = events.filter((e) => e.event_type === 'start' && e.name === 'init-local');
    const first = starts[starts.length - 1] ?? events.find((e) => e.event_type === 'start');
    const finals = events.filter((e) => e.event_type === 'finish' && e.name === 'modules-final');
    const last = finals[finals.length - 1];
    const fmt = (s: number) => new Date(s * 1000).toUTCString();
    const lines = ['-- Most Recent Boot Record --', `    Kernel Started at: ${fmt(kernelStart)}`];
    if (first)
      lines.push(
        `    Cloud-init activated at: ${fmt(first.timestamp)}`,
        `    Kernel to cloud-init activation: ${(first.timestamp - kernelStart).toFixed(5)} seconds`,
      );
    if (first && last && last.timestamp >= first.timestamp)
      lines.push(`    Cloud-init ran for: ${(last.timestamp - first.timestamp).toFixed(5)} seconds`);
    return `${lines.join('\n')}\n`;
  },
);
