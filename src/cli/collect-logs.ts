// `collect-logs`: a tarball of the logs and state cloud-init 25.1's collect-logs gathers, laid out as it lays them
// out (each file at its own path under cloud-init-logs-YYYY-MM-DD/), secrets redacted unless asked otherwise.
import { posix, resolve } from 'node:path';
import type { Platform } from '../platform/platform';
import { loadRunConfig, readKernelCmdline } from '../runner/run-config';
import { writeTar, type TarEntry } from '../runner/tar-writer';
import { redactSecretKeys } from '../util/redact';
import type { Command } from './command';
import { zlib } from '../util/on-demand-builtins';
import { writeCommandOutput } from './command-output';
import { describeError } from '../util/errors';

/** /etc/cloud's folders collect-logs leaves out (keys may hold secrets, templates are the package's), as 25.1. */
const ETC_CLOUD_SKIPPED_DIRS = ['/etc/cloud/keys', '/etc/cloud/templates'];
const ETC_CLOUD_SKIPPED_NAMES = ['99-installer.cfg'];

/** Every file under DIR (recursively), sorted: Python's Path.glob('**\/*') keeping files. */
async function filesUnder(platform: Platform, dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await platform.listDir(dir).catch(() => [] as string[])).sort()) {
    const path = posix.join(dir, name);
    const st = await platform.stat(path);
    if (st?.type === 'directory') out.push(...(await filesUnder(platform, path)));
    else out.push(path);
  }
  return out;
}

/** The entries of DIR matching cloud-init's one-level glob DIR/*, sorted. */
async function childrenOf(platform: Platform, dir: string): Promise<string[]> {
  return (await platform.listDir(dir).catch(() => [] as string[])).sort().map((n) => posix.join(dir, n));
}

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
      '-u, --include-userdata   include what only root may read (user data, the sensitive instance data, dmesg)',
      // cloud-init 25.1 includes that by default and redacts with -r; kiln redacts unless -u is given.
      "-r, --redact-sensitive   leave out what only root may read (kiln's default)",
      '-v, --verbose            accepted as cloud-init takes it',
    ],
  },
  async run(ctx, args) {
    const platform = ctx.platform();
    const rc = await loadRunConfig(platform, ctx.facts.defaultCloudConfig, await readKernelCmdline(platform));
    const includeSensitive = args.flags['include-userdata'] === true && args.flags['redact-sensitive'] !== true;
    const top = `cloud-init-logs-${new Date().toISOString().slice(0, 10)}`;
    const entries: TarEntry[] = [{ path: top, type: 'dir' }];
    const dirs = new Set<string>([top]);
    const put = (path: string, content: Uint8Array): void => {
      const name = posix.join(top, path);
      for (let d = posix.dirname(name); !dirs.has(d); d = posix.dirname(d)) dirs.add(d);
      entries.push({ path: name, content });
    };
    /** The output of CMD (or its failure) as cloud-init writes a command's output into the tarball. */
    const command = async (cmd: string[], name: string): Promise<void> => {
      const r = await platform
        .run(cmd)
        .catch((err: unknown) => ({ code: 127, stdout: '', stderr: describeError(err) }));
      put(name, Buffer.from(r.code === 0 ? r.stdout : `${r.stdout}${r.stderr}` || `${cmd.join(' ')} exited ${r.code}`));
    };
    /** A file at its own path, as cloud-init's _collect_file: skipped when redacting and others may not read it. */
    const file = async (path: string, sensitive = !includeSensitive): Promise<void> => {
      const st = await platform.stat(path);
      if (st?.type !== 'file') return;
      if (sensitive && (st.mode & 0o004) === 0) return;
      const data = await platform.readFile(path).catch(() => undefined);
      if (data === undefined) return;
      let text = Buffer.from(data).toString('utf8');
      if (!includeSensitive && path.endsWith('.json')) {
        try {
          text = `${JSON.stringify(redactSecretKeys(JSON.parse(text)), null, 1)}\n`;
        } catch {
          // Not JSON after all: kept as it is.
        }
      }
      put(path.slice(1), Buffer.from(includeSensitive ? text : ctx.logger.redactor.scrub(text)));
    };

    await command(['cloud-init', '--version'], 'version');
    await command(['dpkg-query', '--show', '-f=${Version}\n', 'cloud-init'], 'dpkg-version');
    // The kernel's ring buffer is the running system's: not an image's under --root.
    if (includeSensitive && platform.root === '/') await command(['dmesg'], 'dmesg.txt');
    await command(['journalctl', '--boot=0', '-o', 'short-precise'], 'journal.txt');
    await command(['journalctl', '--boot=-1', '-o', 'short-precise'], 'journal-previous.txt');
    // The logs whatever is redacted, as cloud-init (kiln's scrub still takes the secrets it knows out of them).
    for (const f of [rc.paths.logFile, rc.paths.outputLogFile, rc.paths.eventLogFile]) await file(f, false);
    for (const f of await filesUnder(platform, '/etc/cloud')) {
      if (ETC_CLOUD_SKIPPED_DIRS.includes(posix.dirname(f)) || ETC_CLOUD_SKIPPED_NAMES.includes(posix.basename(f)))
        continue;
      await file(f);
    }
    for (const dir of ['data', 'handlers', 'seed', 'instance'])
      for (const f of await childrenOf(platform, posix.join(rc.paths.cloudDir, dir))) await file(f);
    for (const f of await childrenOf(platform, rc.paths.runDir)) await file(f);

    for (const d of dirs) if (d !== top) entries.push({ path: d, type: 'dir' });
    entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const out = (args.flags.tarfile as string | undefined) ?? 'cloud-init.tar.gz';
    await writeCommandOutput(ctx, out, zlib().gzipSync(writeTar(entries)), { mode: 0o600 });
    // cloud-init logs this (to stderr) with the absolute path.
    if (!ctx.dryRun) ctx.io.err(`Wrote ${resolve(out)}\n`);
    if (includeSensitive) {
      ctx.io.err(
        'WARNING:\nSensitive data may have been included in the collected logs.\nPlease review the contents of the tarball before sharing or\nrerun with --redact-sensitive to redact sensitive data.\n',
      );
    }
    return 0;
  },
};
