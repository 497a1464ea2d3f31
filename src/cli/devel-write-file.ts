// `devel write-file`: one atomic file write through the platform seam (honours --root and --dry-run).
import { UsageError } from '../util/errors';
import type { Command } from './command';
import { fsPromises } from '../util/on-demand-builtins';

export const develWriteFileCommand: Command = {
  words: ['devel', 'write-file'],
  summary: 'write one file atomically inside the target root, as modules do',
  usage: 'devel write-file PATH (--content TEXT | --from FILE) [--mode 0644] [--owner user:group] [--append]',
  faces: ['kiln', 'cloud-init'],
  positional: [1, 1],
  flags: {
    string: ['content', 'from', 'mode', 'owner'],
    boolean: ['append'],
    help: [
      '--content TEXT   the file content',
      '--from FILE      read the content from FILE on the host',
      '--mode OCTAL     permission bits, e.g. 0600',
      '--owner U[:G]    owner, looked up in the target root',
      '--append         add to the end of the file',
    ],
  },
  async run(ctx, args) {
    const path = args.positional[0] as string;
    if (!path.startsWith('/')) throw new UsageError(`PATH must be absolute inside the target root, not '${path}'`);
    const content = args.flags.content as string | undefined;
    const from = args.flags.from as string | undefined;
    if ((content === undefined) === (from === undefined))
      throw new UsageError('give exactly one of --content and --from');
    const modeText = args.flags.mode as string | undefined;
    if (modeText !== undefined && !/^0?[0-7]{3,4}$/.test(modeText))
      throw new UsageError(`--mode must be octal like 0644, not '${modeText}'`);
    const data = content !== undefined ? content : await fsPromises().readFile(from as string);
    await ctx.platform().writeFile(path, data, {
      ...(modeText !== undefined ? { mode: parseInt(modeText, 8) } : {}),
      ...(args.flags.owner !== undefined ? { owner: args.flags.owner as string } : {}),
      ...(args.flags.append ? { append: true } : {}),
    });
    return 0;
  },
};
