// Writes the files a command was asked to make on the host (an analyze report, a log tarball, rendered network
// files): outside the target root, so not through the Platform, but under --dry-run only announced, never written.
import { dirname } from 'node:path';
import { fsPromises } from '../util/on-demand-builtins';
import type { CommandContext } from './command';

/**
 * Writes DATA to the host file PATH (with MODE; its folder made first when MAKE_PARENTS); under --dry-run prints
 * what it would write instead.
 */
export async function writeCommandOutput(
  ctx: Pick<CommandContext, 'dryRun' | 'io'>,
  path: string,
  data: string | Uint8Array,
  opts: { mode?: number; makeParents?: boolean } = {},
): Promise<void> {
  if (ctx.dryRun) {
    const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    ctx.io.out(`dry run: would write ${path} (${bytes} bytes)\n`);
    return;
  }
  if (opts.makeParents) await fsPromises().mkdir(dirname(path), { recursive: true });
  await fsPromises().writeFile(path, data, opts.mode === undefined ? {} : { mode: opts.mode });
}
