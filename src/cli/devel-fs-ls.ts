// `devel fs-ls`: lists a folder inside an ISO9660 or FAT image or device, without mounting it.
import { openImageSpec } from '../devices/open-image';
import { openTree } from '../devices/probe';
import type { FileTree } from '../devices/filesystem-finder';
import { KilnError, UsageError } from '../util/errors';
import type { Command } from './command';

const MAX_LISTED = 100_000;

async function walk(tree: FileTree, path: string, recursive: boolean, lines: string[], depth: number): Promise<void> {
  const entries = await tree.list(path);
  // Exit 1, as fs-cat's file that is not there: the command was right, the image holds no such folder.
  if (!entries) throw new KilnError(`'${path}' is not a folder in the image`);
  for (const e of entries) {
    if (lines.length >= MAX_LISTED) return;
    const full = `${path.replace(/\/$/, '')}/${e.name}`;
    const kind = e.type === 'directory' ? 'd' : e.type === 'symlink' ? 'l' : '-';
    lines.push(
      `${kind} ${String(e.size).padStart(10)}  ${recursive ? full : e.name}${e.type === 'directory' ? '/' : ''}`,
    );
    if (recursive && e.type === 'directory' && depth < 32) await walk(tree, full, recursive, lines, depth + 1);
  }
}

export const develFsLsCommand: Command = {
  words: ['devel', 'fs-ls'],
  summary: 'list files inside an ISO9660 or FAT image or device, without mounting',
  usage: 'devel fs-ls [-R] [--partition N] IMAGE[:N] [PATH]',
  faces: ['kiln'],
  positional: [1, 2],
  flags: {
    boolean: ['recursive'],
    string: ['partition'],
    alias: { R: 'recursive' },
    help: ['-R, --recursive  list sub-folders too', '--partition N    read partition N of a partitioned image'],
  },
  async run(ctx, args) {
    const part = args.flags.partition as string | undefined;
    if (part !== undefined && !/^\d+$/.test(part)) throw new UsageError(`--partition must be a number, not '${part}'`);
    const reader = await openImageSpec(args.positional[0] as string, part === undefined ? undefined : Number(part));
    const { tree } = await openTree(reader);
    const lines: string[] = [];
    await walk(tree, args.positional[1] ?? '/', args.flags.recursive === true, lines, 0);
    ctx.io.out(lines.map((l) => `${l}\n`).join(''));
    return 0;
  },
};
