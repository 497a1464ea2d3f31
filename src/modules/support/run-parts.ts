// cloud-init's subp.runparts: every executable file in a folder, in sorted order, one failure never stops the rest.
import { posix } from 'node:path';
import { describeError } from '../../util/errors';
import { ModuleError, type ModuleContext } from '../module';

export interface RunPartsOutcome {
  attempted: string[];
  failed: string[];
}

/** Python's sorted() on str compares code points; JS's default sort compares UTF-16 units. Same for BMP names. */
function codePointCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** True for a '#!' script or an ELF binary: what execve() runs without a shell's help. */
async function isDirectlyExecutable(ctx: ModuleContext, path: string): Promise<boolean> {
  try {
    const head = Buffer.from(await ctx.platform.readFile(path)).subarray(0, 4);
    return head.subarray(0, 2).toString('latin1') === '#!' || head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } catch {
    return false; // unreadable: not run directly; running it reports the real failure
  }
}

/**
 * Runs the executables in DIR (inside the target root) with PREFIX before each, their output appended to
 * cloud-init-output.log. A missing folder is nothing to do. Throws ModuleError naming the failed scripts
 * after all have run, as cloud-init raises "Runparts: N failures …".
 */
export async function runParts(
  ctx: ModuleContext,
  module: string,
  dir: string,
  prefix: string[] = [],
): Promise<RunPartsOutcome> {
  const { platform } = ctx;
  const info = await platform.stat(dir);
  if (info?.type !== 'directory') return { attempted: [], failed: [] };
  const names = (await platform.listDir(dir)).slice().sort(codePointCompare);
  const attempted: string[] = [];
  const failed: string[] = [];
  for (const name of names) {
    const path = posix.join(dir, name);
    const st = await platform.stat(path);
    if (st?.type !== 'file') {
      ctx.log.debug(`Not executing special file [${path}]`);
      continue;
    }
    if ((st.mode & 0o111) === 0) {
      // 25.1's runparts warns about a regular file it cannot execute (and leaves it out of the attempted ones).
      ctx.log.warn(
        `skipping ${path} as its not executable or the underlying file system is mounted without executable permissions.`,
      );
      continue;
    }
    attempted.push(path);
    if (!(await isDirectlyExecutable(ctx, path))) {
      // cloud-init execs the file itself (no execvp shell fallback): a script without '#!' fails with ENOEXEC.
      ctx.log.debug(`Exec format error: ${path} has no '#!' line and is not an ELF binary`);
      await ctx.output(`${path}: Exec format error (no '#!' line)\n`);
      failed.push(name);
      continue;
    }
    try {
      const r = await platform.run([...prefix, path], { allowFailure: true });
      const text = r.stdout + r.stderr;
      if (text) await ctx.output(text);
      if (r.code !== 0) {
        ctx.log.debug(
          `Unexpected error while running command. Command: ['${[...prefix, path].join("', '")}'] Exit code: ${r.code}`,
        );
        failed.push(name);
      }
    } catch (err) {
      ctx.log.debug(`could not run ${path}: ${describeError(err)}`);
      failed.push(name);
    }
  }
  if (failed.length > 0) {
    // Worded as cloud-init's runparts RuntimeError (status.json shows it); the cc_scripts_* handler first warns
    // with the name the module list gives it and the folder (its SCRIPT_SUBDIR is the folder's last part).
    ctx.log.warn(`Failed to run module ${ctx.listedAs ?? module} (${posix.basename(dir)} in ${dir})`);
    const err = new ModuleError(
      module,
      `Runparts: ${failed.length} failures (${failed.join(',')}) in ${attempted.length} attempted commands`,
    );
    throw Object.assign(err, { pythonName: 'RuntimeError' });
  }
  return { attempted, failed };
}
