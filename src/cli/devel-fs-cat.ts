// `devel fs-cat`: writes (or saves) one file inside an ISO9660 or FAT image or device, without mounting it.
import { openImageSpec } from '../devices/open-image';
import { openTree } from '../devices/probe';
import { KilnError, UsageError } from '../util/errors';
import type { Command } from './command';
import { writeCommandOutput } from './command-output';

export const develFsCatCommand: Command = {
  words: ['devel', 'fs-cat'],
  summary: 'print one file inside an ISO9660 or FAT image or device, without mounting',
  usage: 'devel fs-cat [--partition N] [-o FILE] IMAGE[:N] PATH',
  faces: ['kiln'],
  positional: [2, 2],
  flags: {
    string: ['partition', 'output'],
    alias: { o: 'output' },
    help: [
      '--partition N    read partition N of a partitioned image',
      '-o, --output F   write the exact bytes to F instead of standard output',
    ],
  },
  async run(ctx, args) {
    const part = args.flags.partition as string | undefined;
    if (part !== undefined && !/^\d+$/.test(part)) throw new UsageError(`--partition must be a number, not '${part}'`);
    const image = args.positional[0] as string;
    const path = args.positional[1] as string;
    const { tree } = await openTree(await openImageSpec(image, part === undefined ? undefined : Number(part)));
    const data = await tree.readFile(path);
    if (!data) throw new KilnError(`${image}: no file '${path}' (list the image with 'kiln devel fs-ls ${image} -R')`);
    const output = args.flags.output as string | undefined;
    if (output) {
      await writeCommandOutput(ctx, output, data);
      return 0;
    }
    // As curl does: a pipe or a file gets the exact bytes (`fs-cat IMG PATH | sha256sum`), a terminal gets
    // text only, since binary bytes can leave it unusable.
    const terminal = ctx.io.outIsTerminal?.() ?? false;
    if (!terminal && ctx.io.outBytes) {
      ctx.io.outBytes(data);
      return 0;
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(data);
    } catch {
      throw new KilnError(
        `${image}: '${path}' is binary (not UTF-8 text) and standard output is a terminal; pipe it (kiln devel fs-cat ${image} ${path} | sha256sum) or save it with -o FILE`,
      );
    }
    ctx.io.out(text);
    return 0;
  },
};
