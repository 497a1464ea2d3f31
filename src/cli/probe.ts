// `probe`: filesystem type, label, UUID and size of block devices or image files, read directly (no blkid).
import { UsageError } from '../util/errors';
import { probeLinuxMachine } from '../devices/machine-probe';
import { openImageSpec } from '../devices/open-image';
import { probe, type ProbeResult } from '../devices/probe';
import { probeWindowsMachine } from '../devices/windows-machine-probe';
import type { Command } from './command';

function human(bytes: number): string {
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
  const rows: string[][] = [['DEVICE', 'SIZE', 'TYPE', 'VERSION', 'LABEL', 'UUID', 'NOTE']];
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
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n') + '\n';
}

export const probeCommand: Command = {
  words: ['probe'],
  summary: 'show the filesystem, label and UUID of block devices or image files, without mounting',
  usage: 'probe [--json] [DEVICE|IMAGE[:PARTITION] ...]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, Infinity],
  flags: {
    boolean: ['json'],
    help: [
      '--json           print a JSON array instead of a table',
      'With no argument: every block device of the machine (Linux: /sys/class/block under --root;',
      'Windows: drive letters and \\\\.\\PhysicalDriveN with their partitions).',
    ],
  },
  async run(ctx, args) {
    let results: ProbeResult[];
    if (args.positional.length > 0) {
      results = [];
      for (const spec of args.positional) {
        try {
          results.push(await probe(await openImageSpec(spec)));
        } catch (err) {
          results.push({ device: spec, size: 0, error: (err as Error).message });
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
