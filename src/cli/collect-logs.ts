// `collect-logs`: a tarball of kiln's logs and state for a bug report, secrets redacted and user data left out.
import { posix } from 'node:path';
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
import { writeTar, type TarEntry } from '../runner/tar-writer';
import { redactSecretKeys } from '../util/redact';
import type { Command } from './command';
import { zlib } from '../util/on-demand-builtins';
import { writeCommandOutput } from './command-output';

/** Files that hold secrets as a whole: left out unless --include-userdata. */
const SENSITIVE_FILES = ['instance-data-sensitive.json', 'combined-cloud-config.json', 'user-data.txt', 'vendor-data.txt', 'vendor-data2.txt', 'user-data.txt.i', 'vendor-data.txt.i', 'vendor-data2.txt.i', 'cloud-config.txt', 'vendor-cloud-config.txt', 'vendor2-cloud-config.txt', 'obj.json'];

export const collectLogsCommand: Command = {
  words: ['collect-logs'],
  summary: 'collect logs and state into a tarball for a bug report (secrets redacted)',
  usage: 'collect-logs [--tarfile FILE] [--include-userdata] [--redact-sensitive] [--verbose]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    string: ['tarfile'],
    boolean: ['include-userdata', 'redact-sensitive', 'verbose'],
    alias: { t: 'tarfile', u: 'include-userdata', r: 'redact-sensitive', v: 'verbose' },
    help: [
      '-t, --tarfile F          output file (default cloud-init.tar.gz)',
      '-u, --include-userdata   include user data and the sensitive instance data',
      // cloud-init 24.1+'s flags, taken so that a script written for it runs: kiln redacts secrets whatever is given.
      '-r, --redact-sensitive   accepted as cloud-init takes it; kiln always redacts secrets',
      '-v, --verbose            accepted as cloud-init takes it',
    ],
  },
  async run(ctx, args) {
    const platform = ctx.platform();
    const rc = await loadRunConfig(platform, ctx.facts.defaultCloudConfig, await readKernelCmdline(platform));
    const include = args.flags['include-userdata'] === true;
    const stamp = new Date().toISOString().slice(0, 10).replace(/-/g, '');
    const top = `cloud-init-logs-${stamp}`;
    const entries: TarEntry[] = [{ path: top, type: 'dir' }];
    const add = async (path: string, into: string): Promise<void> => {
      const data = await platform.readFile(path).catch(() => undefined);
      if (data === undefined) return;
      let content: Uint8Array = data;
      if (path.endsWith('.json')) {
        try {
          content = Buffer.from(`${JSON.stringify(redactSecretKeys(JSON.parse(Buffer.from(data).toString('utf8'))), null, 1)}\n`);
        } catch {
          // Not JSON after all: kept as it is.
        }
      }
      entries.push({ path: posix.join(top, into), content: Buffer.from(ctx.logger.redactor.scrub(Buffer.from(content).toString('utf8'))) });
    };
    for (const f of [rc.paths.logFile, rc.paths.outputLogFile, rc.paths.eventLogFile]) await add(f, posix.basename(f));
    entries.push({ path: posix.join(top, 'run', 'cloud-init'), type: 'dir' });
    for (const name of await platform.listDir(rc.paths.runDir).catch(() => [] as string[])) {
      if (!include && SENSITIVE_FILES.includes(name)) continue;
      await add(posix.join(rc.paths.runDir, name), posix.join('run', 'cloud-init', name));
    }
    const idir = rc.paths.instanceLink;
    for (const name of await platform.listDir(idir).catch(() => [] as string[])) {
      if (!include && SENSITIVE_FILES.includes(name)) continue;
      await add(posix.join(idir, name), posix.join('instance', name));
    }
    await add('/proc/cmdline', 'proc-cmdline');
    const out = (args.flags.tarfile as string | undefined) ?? 'cloud-init.tar.gz';
    await writeCommandOutput(ctx, out, zlib().gzipSync(writeTar(entries)), { mode: 0o600 });
    if (!ctx.dryRun) ctx.io.out(`Wrote ${out}\n`);
    return 0;
  },
};
