// Downloads an installer script (puppet's AIO, chef's omnibus) and runs it from a temporary folder in the target, as
// cloud-init's subp_blob_in_tempfile does.
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { HttpClient } from '../../util/http';
import { ModuleError, type ModuleContext } from '../module';
import { describeError } from '../../util/errors';

/** cloud-init's get_tmp_exec_path: /var/tmp/cloud-init (the distro's exec-capable temp ancestor). */
const TMP_EXEC_DIR = '/var/tmp/cloud-init';

/** readurl(url, retries) then the script, written 0700 as BASENAME in a fresh temp folder, runs with ARGS. */
export async function runInstallerScript(
  ctx: ModuleContext,
  module: string,
  url: string,
  retries: number,
  basename: string,
  args: string[],
): Promise<void> {
  const client = new HttpClient({ log: ctx.log, env: process.env });
  let body: Uint8Array;
  try {
    body = (await client.fetch(url, { retries, timeoutMs: 30_000 })).body;
  } catch (err) {
    throw new ModuleError(module, `could not download ${url}: ${describeError(err)}`, { cause: err });
  } finally {
    await client.close();
  }
  const dir = posix.join(TMP_EXEC_DIR, `tmp${randomBytes(4).toString('hex')}`);
  await ctx.platform.mkdir(dir, { mode: 0o700 });
  try {
    const script = posix.join(dir, basename);
    await ctx.platform.writeFile(script, body, { mode: 0o700 });
    const r = await ctx.platform.run([script, ...args], { allowFailure: true });
    if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0) throw new ModuleError(module, `'${[script, ...args].join(' ')}' exited with code ${r.code}`);
  } finally {
    await ctx.platform.remove(dir, { recursive: true });
  }
}
