// `probe`: filesystem type, label, UUID and size of block devices or image files, read directly (no blkid).
import { describeError, UsageError } from '../util/errors';
import { probeLinuxMachine } from '../devices/machine-probe';
import { openImageSpec } from '../devices/open-image';
import { probe, type ProbeResult } from '../devices/probe';
import { probeWindowsMachine } from '../devices/windows-machine-probe';
import { createFilesystemFinder } from '../devices/create-finder';
import type { Command, CommandContext } from './command';

function list(v: string | boolean | string[] | undefined): string[] {
  return v === undefined || typeof v === 'boolean' ? [] : Array.isArray(v) ? v : [v];
}

/** `probe --label`: what a datasource asking for these labels would be given. Exit 1 when nothing is found. */
async function findAndList(
  ctx: CommandContext,
  labels: string[],
  mustContain: string[],
  images: string[],
  json: boolean,
): Promise<number> {
  const finder = createFilesystemFinder({
    os: ctx.platform().os,
    root: ctx.root,
    facts: ctx.facts,
    env: ctx.env,
    log: ctx.log,
    images,
  });
  const found = await finder.find({ labels, ...(mustContain.length > 0 ? { mustContain } : {}) });
  const rows = found.map((f) => ({
    device: f.device,
    fsType: f.fsType,
    label: f.label,
    ...(f.uuid ? { uuid: f.uuid } : {}),
  }));
  if (json) ctx.io.out(`${JSON.stringify(rows, null, 2)}\n`);
  else if (rows.length === 0)
    ctx.io.err(
      `no filesystem labelled ${labels.join(' or ')}${mustContain.length ? ` holding ${mustContain.join(' or ')}` : ''}\n`,
    );
  else for (const r of rows) ctx.io.out(`${r.device}\t${r.fsType}\t${r.label}${r.uuid ? `\t${r.uuid}` : ''}\n`);
  return rows.length > 0 ? 0 : 1;
}

function human(bytes: number): string {
  if (bytes === 0) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

/** One row per device and per partition, indented under its disk. */
export function probeTable(results: ProbeResult[]): string {
  const header = ['DEVICE', 'SIZE', 'TYPE', 'VERSION', 'LABEL', 'UUID', 'NOTE'];
  const rows: string[][] = [header];
  const add = (r: ProbeResult, indent: string) =>
    rows.push([
      indent + r.device,
      human(r.size),
      r.fsType ?? r.partitionTable ?? '-',
      r.version ?? '',
      r.label ?? '',
      r.uuid ?? '',
      r.error ?? '',
    ]);
  for (const r of results) {
    add(r, '');
    for (const p of r.partitions ?? []) add(p, '  ');
  }
  const widths = header.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return `${rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

export const probeCommand: Command = {
  words: ['probe'],
  summary: 'show the filesystem, label and UUID of block devices or image files, without mounting',
  usage: 'probe [--json] [DEVICE|IMAGE[:PARTITION] ...]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, Infinity],
  flags: {
    boolean: ['json'],
    string: ['label', 'must-contain'],
    repeatable: ['label', 'must-contain'],
    help: [
      '--json           print a JSON array instead of a table',
      '--label L        find filesystems labelled L (repeatable) as datasources do, and list them',
      '--must-contain P with --label: only filesystems holding file P (repeatable)',
      'With no argument: every block device of the machine (Linux: /sys/class/block under --root;',
      'Windows: drive letters and \\\\.\\PhysicalDriveN with their partitions).',
    ],
  },
  async run(ctx, args) {
    const labels = list(args.flags.label);
    if (labels.length > 0)
      return findAndList(ctx, labels, list(args.flags['must-contain']), args.positional, args.flags.json === true);
    if (args.flags['must-contain'] !== undefined) throw new UsageError('--must-contain needs --label');
    let results: ProbeResult[];
    if (args.positional.length > 0) {
      results = [];
      for (const spec of args.positional) {
        try {
          results.push(await probe(await openImageSpec(spec)));
        } catch (err) {
          results.push({ device: spec, size: 0, error: describeError(err) });
        }
      }
    } else if (ctx.platform().os === 'windows') {
      results = await probeWindowsMachine(ctx.facts, ctx.env);
    } else {
      if (!ctx.root) throw new UsageError('no root');
      results = await probeLinuxMachine(ctx.root);
    }
    ctx.io.out(args.flags.json ? `${JSON.stringify(results, null, 2)}\n` : probeTable(results));
    return results.some((r) => r.error !== undefined && args.positional.length > 0) ? 1 : 0;
  },
};
