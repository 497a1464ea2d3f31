// `analyze show|blame|dump|boot`: boot timing from kiln's event log (and /proc/uptime for `boot`).
import { formatBlame, formatShow, pairEvents } from '../runner/analyze-events';
import { parseEventLog, type BootEvent } from '../runner/event-log';
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
import type { Command, CommandContext, ParsedArgs } from './command';
import { fsPromises } from '../util/on-demand-builtins';
import { writeCommandOutput } from './command-output';

const FLAGS = {
  string: ['infile', 'outfile'],
  alias: { i: 'infile', o: 'outfile' },
  help: ['-i, --infile F    the event log to read (default /var/log/kiln-events.jsonl in the target)', '-o, --outfile F   write the report to F instead of stdout'],
};

async function loadEvents(ctx: CommandContext, args: ParsedArgs): Promise<{ events: BootEvent[]; source: string } | undefined> {
  const given = args.flags.infile as string | undefined;
  if (given) {
    const text = await fsPromises().readFile(given, 'utf8').catch(() => undefined);
    return text === undefined ? undefined : { events: parseEventLog(text), source: given };
  }
  const platform = ctx.platform();
  const rc = await loadRunConfig(platform, ctx.facts.defaultCloudConfig, await readKernelCmdline(platform));
  const text = await platform.readTextIfExists(rc.paths.eventLogFile);
  return text === undefined ? undefined : { events: parseEventLog(text), source: rc.paths.eventLogFile };
}

async function emit(ctx: CommandContext, args: ParsedArgs, text: string): Promise<void> {
  const out = args.flags.outfile as string | undefined;
  if (out && out !== '-') await writeCommandOutput(ctx, out, text);
  else ctx.io.out(text);
}

function analyzeCommand(word: 'show' | 'blame' | 'dump' | 'boot', summary: string, render: (events: BootEvent[], ctx: CommandContext) => Promise<string>): Command {
  return {
    words: ['analyze', word],
    summary,
    usage: `analyze ${word} [--infile FILE] [--outfile FILE]`,
    faces: ['kiln', 'cloud-init'],
    positional: [0, 0],
    flags: FLAGS,
    async run(ctx, args) {
      const loaded = await loadEvents(ctx, args);
      if (!loaded) {
        ctx.io.err(`Empty file or missing event log: ${(args.flags.infile as string | undefined) ?? '/var/log/kiln-events.jsonl'}; has cloud-init run?\n`);
        return 1;
      }
      await emit(ctx, args, await render(loaded.events, ctx));
      return 0;
    },
  };
}

export const analyzeShowCommand = analyzeCommand('show', 'show every stage and module of each boot with its time', async (e) => formatShow(pairEvents(e)));
export const analyzeBlameCommand = analyzeCommand('blame', 'list the stages and modules of each boot, slowest first', async (e) => formatBlame(pairEvents(e)));
export const analyzeDumpCommand = analyzeCommand('dump', 'print the boot events as JSON', async (e) => `${JSON.stringify(e, null, 4)}\n`);
export const analyzeBootCommand = analyzeCommand('boot', 'when the kernel started, when kiln started and how long it ran', async (events) => {
  const uptime = Number.parseFloat((await fsPromises().readFile('/proc/uptime', 'utf8').catch(() => '0')).split(/\s+/)[0] ?? '0');
  const kernelStart = Date.now() / 1000 - uptime;
  const starts = events.filter((e) => e.event_type === 'start' && e.name === 'init-local');
  const first = starts[starts.length - 1] ?? events.find((e) => e.event_type === 'start');
  const finals = events.filter((e) => e.event_type === 'finish' && e.name === 'modules-final');
  const last = finals[finals.length - 1];
  const fmt = (s: number) => new Date(s * 1000).toUTCString();
  const lines = ['-- Most Recent Boot Record --', `    Kernel Started at: ${fmt(kernelStart)}`];
  if (first) lines.push(`    Cloud-init activated at: ${fmt(first.timestamp)}`, `    Kernel to cloud-init activation: ${(first.timestamp - kernelStart).toFixed(5)} seconds`);
  if (first && last && last.timestamp >= first.timestamp) lines.push(`    Cloud-init ran for: ${(last.timestamp - first.timestamp).toFixed(5)} seconds`);
  return `${lines.join('\n')}\n`;
});
