// How soon the built kiln-win-x64.exe, started as `service run`, calls StartServiceCtrlDispatcherW under wine (the
// service control manager allows 30 s): cold (a profile whose koffi addon cache is empty, so the addon is written out
// first) and warm. Started by hand, so the dispatcher then fails to connect (after wine's wait); only the time to the
// call is measured: from spawning wine (wine's own start included) and, as kiln logs it, from Node's start.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { builtBinary } from '../helpers/repo';
import { hasCommand } from '../helpers/requirements';
import { ensureWinePrefix, privateWinePrefix } from '../helpers/wine';
import { printTable } from './measure';

const LINE = /StartServiceCtrlDispatcherW called (\d+) ms after the process started/;

/** A private prefix with its own drive_c\users (a copy without kiln's koffi cache); the rest of drive_c is shared. */
function coldPrefix(dir: string): string {
  const shared = ensureWinePrefix();
  const prefix = privateWinePrefix(dir, {}, []);
  rmSync(join(prefix, 'drive_c'));
  mkdirSync(join(prefix, 'drive_c'));
  for (const name of readdirSync(join(shared, 'drive_c'))) {
    if (name !== 'users') symlinkSync(join(shared, 'drive_c', name), join(prefix, 'drive_c', name));
  }
  cpSync(join(shared, 'drive_c', 'users'), join(prefix, 'drive_c', 'users'), {
    recursive: true,
    filter: (src) => !/[\\/]AppData[\\/]Local[\\/]kiln$/.test(src),
  });
  return prefix;
}

/**
 * Spawns `wine EXE --debug service run` in PREFIX; resolves with the ms from spawn to the dispatcher line, and kiln's
 * own figure.
 */
function timeToDispatcher(exe: string, prefix: string, dir: string): Promise<{ wallMs: number; nodeMs: number }> {
  const err = join(dir, 'err.txt');
  const started = performance.now();
  const child = spawn('sh', ['-c', `exec wine '${exe}' --debug service run > '${join(dir, 'out.txt')}' 2> '${err}'`], {
    env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', NODE_SKIP_PLATFORM_CHECK: '1' },
    stdio: 'ignore',
  });
  return new Promise((resolve, reject) => {
    let wallMs: number | undefined;
    const poll = setInterval(() => {
      if (wallMs === undefined && existsSync(err) && LINE.test(readFileSync(err, 'utf8')))
        wallMs = performance.now() - started;
    }, 5);
    child.on('exit', () => {
      clearInterval(poll);
      const m = LINE.exec(existsSync(err) ? readFileSync(err, 'utf8') : '');
      if (!m || wallMs === undefined)
        reject(new Error(`no dispatcher line: ${existsSync(err) ? readFileSync(err, 'utf8') : '(no stderr)'}`));
      else resolve({ wallMs, nodeMs: Number(m[1]) });
    });
  });
}

const exe = builtBinary('kiln-win-x64.exe');
if (!exe || !hasCommand('wine')) {
  console.log('dist/kiln-win-x64.exe is not built (node build.mjs win-x64) or wine is not installed');
  process.exit(1);
}
const rows: string[][] = [];
for (let i = 0; i < 3; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-bench-service-'));
  try {
    const prefix = coldPrefix(dir);
    const cached = () =>
      readdirSync(join(prefix, 'drive_c', 'users')).some((user) =>
        existsSync(join(prefix, 'drive_c', 'users', user, 'AppData', 'Local', 'kiln', 'cache')),
      );
    for (const kind of ['cold (koffi addon written out)', 'warm (addon cached)']) {
      if (cached() !== kind.startsWith('warm'))
        throw new Error(`the koffi cache is ${cached() ? '' : 'not '}there before the ${kind} run`);
      const r = await timeToDispatcher(exe, prefix, dir);
      rows.push([`${kind} #${i + 1}`, r.wallMs.toFixed(0), String(r.nodeMs), r.wallMs < 30_000 ? 'yes' : 'NO']);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
printTable(
  ['run', 'spawn → dispatcher ms (wine start included)', "Node start → dispatcher ms (kiln's log)", 'under 30 s'],
  rows,
);
