// Runs the built Windows binary under wine, stdout and stderr to files (wine + node need that, not pipes).
import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { privateCopy } from './overlay-copy';
import { builtBinary, REPO } from './repo';
import { hasCommand, need } from './requirements';

export interface WineResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The wine prefix shared by all tests; created once by ensureWinePrefix (the slow part). */
export const WINE_PREFIX = process.env.KILN_WINEPREFIX ?? join(REPO, '.cache', 'wine-prefix');

/**
 * Written into a prefix only after wineboot finished with it and it reports Windows 10: a prefix without it is half
 * made (or an older one reporting wine's default, Windows 7, which Node refuses to start on).
 */
const READY_MARKER = '.kiln-ready-win10';
/** The registry files as wineboot left them, copied by private prefixes: the live ones change under other tests. */
const PRISTINE = '.kiln-pristine';
const LOCK_STALE_MS = 10 * 60_000;

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Makes the shared 64-bit prefix exactly once, even when several test processes ask at the same time: the
 * first takes a lock directory, boots wine in a scratch prefix and renames it into place when wineserver has
 * exited; the others wait for the ready marker. A copy of a prefix caught mid-boot is what made wine say
 * "system.reg is not a valid registry file" and "a 32-bit installation" in CI.
 */
export function ensureWinePrefix(): string {
  if (existsSync(join(WINE_PREFIX, READY_MARKER))) return WINE_PREFIX;
  const lock = `${WINE_PREFIX}.lock`;
  mkdirSync(join(WINE_PREFIX, '..'), { recursive: true });
  const deadline = Date.now() + LOCK_STALE_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(join(WINE_PREFIX, READY_MARKER))) return WINE_PREFIX;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for another test to create the wine prefix ${WINE_PREFIX}`);
      sleepMs(500);
    }
  }
  try {
    if (existsSync(join(WINE_PREFIX, READY_MARKER))) return WINE_PREFIX;
    const scratch = `${WINE_PREFIX}.boot-${process.pid}`;
    rmSync(scratch, { recursive: true, force: true });
    const env = {
      ...process.env,
      WINEPREFIX: scratch,
      WINEARCH: 'win64',
      WINEDEBUG: '-all',
      WINEDLLOVERRIDES: 'mscoree,mshtml=',
    };
    const boot = spawnSync('wine', ['wineboot', '--init'], { env, stdio: 'ignore', timeout: 300_000 });
    // Windows 10, as the images kiln is for (and Node 22 needs 8.1 at least): winecfg writes the version wine reports.
    const win10 = spawnSync('wine', ['winecfg', '/v', 'win10'], { env, stdio: 'ignore', timeout: 120_000 });
    spawnSync('wineserver', ['-w'], { env, stdio: 'ignore', timeout: 120_000 });
    if (boot.status !== 0 || !existsSync(join(scratch, 'system.reg')))
      throw new Error(`wineboot --init failed in ${scratch} (exit ${boot.status ?? boot.signal})`);
    if (win10.status !== 0)
      throw new Error(`winecfg /v win10 failed in ${scratch} (exit ${win10.status ?? win10.signal})`);
    mkdirSync(join(scratch, PRISTINE));
    for (const f of readdirSync(scratch))
      if (f.endsWith('.reg') || f === '.update-timestamp') copyFileSync(join(scratch, f), join(scratch, PRISTINE, f));
    writeFileSync(join(scratch, READY_MARKER), `${new Date().toISOString()}\n`);
    rmSync(WINE_PREFIX, { recursive: true, force: true });
    renameSync(scratch, WINE_PREFIX);
    return WINE_PREFIX;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface PrivatePrefixOptions {
  /**
   * A drive_c of the prefix's own (an overlay of the shared one, or a copy), for a test that writes into C: (an MSI
   * installing into C:\Program Files): nothing it writes reaches the other tests' C:.
   */
  ownDriveC?: boolean;
}

/**
 * A private prefix sharing the shared one's drive_c (so wine is not initialised again) with its own registry
 * and drive letters (`{q: '/some/dir'}`; the letters in `cdroms` are typed as CD-ROM drives), so registry
 * state, computer name and drives of one test touch no other test. Z: maps to /, as in every prefix.
 */
export function privateWinePrefix(
  dir: string,
  drives: Record<string, string>,
  cdroms: string[],
  { ownDriveC = false }: PrivatePrefixOptions = {},
): string {
  const shared = ensureWinePrefix();
  const prefix = join(dir, 'wine-prefix');
  mkdirSync(join(prefix, 'dosdevices'), { recursive: true });
  for (const f of readdirSync(join(shared, PRISTINE))) copyFileSync(join(shared, PRISTINE, f), join(prefix, f));
  if (ownDriveC) privateCopy(join(shared, 'drive_c'), join(prefix, 'drive_c'));
  else symlinkSync(join(shared, 'drive_c'), join(prefix, 'drive_c'));
  symlinkSync('../drive_c', join(prefix, 'dosdevices', 'c:'));
  symlinkSync('/', join(prefix, 'dosdevices', 'z:'));
  for (const [letter, target] of Object.entries(drives)) symlinkSync(target, join(prefix, 'dosdevices', `${letter}:`));
  if (cdroms.length > 0)
    appendFileSync(
      join(prefix, 'system.reg'),
      `\n[Software\\\\Wine\\\\Drives] 1700000000\n${cdroms.map((l) => `"${l}:"="cdrom"`).join('\n')}\n`,
    );
  return prefix;
}

/**
 * Runs `exe args` under wine in the shared prefix, or in `env.WINEPREFIX` when a test gives its own; inside the
 * network namespace NETNS when given (`ip netns exec`), so that wine lists that namespace's interfaces as its
 * adapters and nothing it does reaches the host's. The prefix's wineserver must start there too: give such a run
 * a private prefix.
 */
export function runUnderWine(
  exe: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 180_000,
  netns?: string,
): WineResult {
  ensureWinePrefix();
  const dir = mkdtempSync(join(tmpdir(), 'kiln-wine-'));
  try {
    const out = join(dir, 'out.txt');
    const err = join(dir, 'err.txt');
    const quoted = [exe, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const command = ['sh', '-c', `wine ${quoted} > '${out}' 2> '${err}'`];
    const r = spawnSync(netns ? 'ip' : 'sh', netns ? ['netns', 'exec', netns, ...command] : command.slice(1), {
      env: { ...process.env, WINEPREFIX: WINE_PREFIX, WINEDEBUG: '-all', ...env },
      timeout: timeoutMs,
    });
    return { code: r.status ?? -1, stdout: readFileSync(out, 'utf8'), stderr: readFileSync(err, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * runUnderWine's way (stdout and stderr to files in DIR: node under wine needs that) but asynchronous, so a
 * mock server in the test's own process can answer while the exe runs.
 */
export function runUnderWineAsync(
  dir: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 180_000,
): Promise<WineResult> {
  const out = join(dir, 'wine-out.txt');
  const err = join(dir, 'wine-err.txt');
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `exec wine ${quoted} > '${out}' 2> '${err}'`], {
      env: { ...process.env, WINEDEBUG: '-all', ...env },
      stdio: 'ignore',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({
        code: code ?? -1,
        stdout: existsSync(out) ? readFileSync(out, 'utf8') : '',
        stderr: existsSync(err) ? readFileSync(err, 'utf8') : '',
      });
    });
  });
}

/**
 * The built kiln-win-x64.exe when it and wine are both here; else undefined, with T skipped saying which is missing.
 */
export function wineExe(t: TestContext): string | undefined {
  const exe = builtBinary('kiln-win-x64.exe');
  if (!need(t, exe !== undefined, 'dist/kiln-win-x64.exe is not built (node build.mjs win-x64)')) return undefined;
  if (!need(t, hasCommand('wine'), 'wine is not installed (apt-get install wine wine64)')) return undefined;
  return exe;
}

/**
 * One registry value read back through wine's own reg.exe (so it comes from wineserver, not a stale .reg file): 'REG_SZ
 * text'.
 */
export function wineRegQuery(prefix: string, key: string, name: string, netns?: string): string | undefined {
  // In NETNS when the prefix's wine runs there (its wineserver and services.exe started in it).
  const command = ['wine', 'reg', 'query', key, '/v', name];
  const r = spawnSync(netns ? 'ip' : 'wine', netns ? ['netns', 'exec', netns, ...command] : command.slice(1), {
    env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const m = new RegExp(`^\\s*${name}\\s+(REG_\\w+)\\s+(.*?)\\s*$`, 'im').exec(r.stdout ?? '');
  return m ? `${m[1]} ${m[2]}` : undefined;
}

/** The computer name PREFIX's registry holds (what SetHostNamePlugin set), '' when there is none. */
export function wineComputerName(prefix: string): string {
  return (
    wineRegQuery(
      prefix,
      'HKLM\\System\\CurrentControlSet\\Control\\ComputerName\\ComputerName',
      'ComputerName',
    )?.replace(/^REG_SZ /, '') ?? ''
  );
}

/**
 * A `rem cmd` batch (cloudbase-init's cmd user data) that appends LINE to the host file MARKER through Z: and exits
 * CODE.
 */
export function markerBatch(marker: string, line: string, code = 0): string {
  return `rem cmd\r\necho ${line}>> Z:${marker.replace(/\//g, '\\')}\r\nexit ${code}\r\n`;
}

/** The lines the batches appended to MARKER, [] when none ran. */
export function markerLines(marker: string): string[] {
  return existsSync(marker) ? readFileSync(marker, 'utf8').trim().split(/\r?\n/) : [];
}

/**
 * Writes DIR/cloudbase-init.conf as on Windows (CRLF): [DEFAULT] with the DEFAULTS lines, no reboot and the log in
 * DIR as cloudbase-init.log, then the SECTIONS lines ('[azure]', 'wireserver_url=…'). Returns its path.
 */
export function writeCloudbaseInitConf(dir: string, defaults: string[], sections: string[] = []): string {
  const conf = join(dir, 'cloudbase-init.conf');
  writeFileSync(
    conf,
    [
      '[DEFAULT]',
      ...defaults,
      'allow_reboot=false',
      `log_dir=Z:${dir}`,
      'log_file=cloudbase-init.log',
      '',
      ...sections,
      '',
    ].join('\r\n'),
  );
  return conf;
}

export interface CloudbaseInitRun extends WineResult {
  /** DIR/cloudbase-init.log ('' when the run wrote none). */
  log: string;
  /** stdout, stderr and the log, for a failure message. */
  all: string;
}

/**
 * Runs EXE as cloudbase-init with DIR/cloudbase-init.conf (writeCloudbaseInitConf) in PREFIX, asynchronously so a
 * mock metadata service in this process can answer; ENV is added to wine's environment.
 */
export async function runCloudbaseInit(
  exe: string,
  dir: string,
  prefix: string,
  env: Record<string, string> = {},
): Promise<CloudbaseInitRun> {
  const r = await runUnderWineAsync(dir, [exe, '--config-file', `Z:${join(dir, 'cloudbase-init.conf')}`], {
    WINEPREFIX: prefix,
    KILN_FACE: 'cloudbase-init',
    ...env,
  });
  const logFile = join(dir, 'cloudbase-init.log');
  const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
  return { ...r, log, all: `${r.stdout}\n${r.stderr}\n${log}` };
}

/** A wine command of one prefix (the tool and its arguments), as a test runs it: its exit status and output. */
export type WineCommand = (args: string[]) => { status: number | null; stdout: string; stderr: string };

/**
 * Keeps wine's session of ENV's prefix (and so services.exe and its record of each service's run) until T ends:
 * wine ends services.exe with the last program of a prefix, and a new one knows of no run (exit code 1077, "never
 * started"). The keeper is a `cmd /c pause` waiting on its stdin, in the network namespace NETNS when given.
 */
export function keepWineSession(t: TestContext, env: Record<string, string>, netns?: string): void {
  const command = ['wine', 'cmd', '/c', 'pause'];
  const keeper = spawn(netns ? 'ip' : 'wine', netns ? ['netns', 'exec', netns, ...command] : command.slice(1), {
    env: { ...process.env, ...env, WINEDEBUG: '-all' },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  t.after(() => void keeper.kill('SIGKILL'));
}

/**
 * Starts SERVICE through the service control manager (`net start`) with WINE and waits until it has stopped (the
 * kiln service stops when its flow is done); `sc query`'s text then, or undefined when it did not stop in time.
 */
export function startServiceAndWait(
  wine: WineCommand,
  service: string,
  polls = 600,
): { started: string; state: string | undefined } {
  const started = wine(['net', 'start', service]);
  if (started.status !== 0) return { started: `${started.stdout}${started.stderr}`, state: undefined };
  for (let i = 0; i < polls; i++) {
    spawnSync('sleep', ['0.3']);
    const state = wine(['sc', 'query', service]).stdout;
    if (/STATE\s+:\s+1\s+STOPPED/.test(state)) return { started: started.stdout, state };
  }
  return { started: started.stdout, state: undefined };
}
