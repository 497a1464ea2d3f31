// Kills a first boot of kiln in the Debian rootfs at a chosen moment, boots again, and says what is wrong with
// the result: the crash-consistency harness behind test/reliability/crash-consistency.test.ts and
// `npm run soak -- crash`. Each boot runs on an overlay of one prepared rootfs, so a kill point costs no copy.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { copyRootfs } from './debian-rootfs';
import { seededRandom } from './seeded-random';
import { removeTree } from './overlay-copy';

export const CRASH_SEED_HOSTNAME = 'crashbox';
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGk3Bf2cR7uZ8w2e5q9mJ1c0nqFq3Zk6bq2yYl1z7m4L crash@test';

/** Per-instance and per-boot effects the checks count: runcmd appends one line per run, bootcmd one per boot. */
const USER_DATA = `#cloud-config
hostname: ${CRASH_SEED_HOSTNAME}
locale: C.UTF-8
users:
  - default
  - name: alice
    groups: [sudo]
    shell: /bin/bash
    ssh_authorized_keys: ['${KEY}']
chpasswd:
  expire: false
  users:
    - {name: alice, password: crash-test-pass, type: text}
write_files:
  - path: /etc/crash/written
    content: "complete file\\n"
bootcmd:
  - echo boot >> /var/tmp/bootcmd-runs
runcmd:
  - echo run >> /var/tmp/runcmd-runs
`;

/** The four stages, one after the other as systemd runs them (a failed stage does not stop the next). */
const BOOT_SCRIPT = [
  'mount -t proc proc /proc',
  'for s in "init --local" "init" "modules --mode config" "modules --mode final"; do /usr/bin/cloud-init $s >/dev/null 2>&1; done',
  'exit 0',
].join('\n');

/** A rootfs copy at DIR with kiln (BINARY) as /usr/bin/cloud-init and a NoCloud seed: the lower layer of every boot. */
export function prepareCrashRootfs(dir: string, binary: string): string {
  const root = copyRootfs(dir);
  rmSync(join(root, 'usr/bin/cloud-init'), { force: true });
  writeFileSync(join(root, 'usr/bin/cloud-init'), readFileSync(binary), { mode: 0o755 });
  const seed = join(root, 'var/lib/cloud/seed/nocloud');
  mkdirSync(seed, { recursive: true });
  writeFileSync(join(seed, 'meta-data'), 'instance-id: iid-crash\n');
  writeFileSync(join(seed, 'user-data'), USER_DATA);
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90-crash.cfg'), 'datasource_list: [NoCloud]\n');
  return root;
}

/** One machine: an overlay of the prepared rootfs, mounted at `root` until `dispose`. */
export interface CrashMachine {
  root: string;
  dispose(): void;
}

export function overlayMachine(lower: string, work: string): CrashMachine {
  const [upper, scratch, root] = ['upper', 'work', 'merged'].map((d) => join(work, d)) as [string, string, string];
  for (const d of [upper, scratch, root]) mkdirSync(d, { recursive: true });
  const r = spawnSync(
    'mount',
    ['-t', 'overlay', 'overlay', '-o', `lowerdir=${lower},upperdir=${upper},workdir=${scratch}`, root],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`mounting the overlay at ${root} failed: ${r.stderr}`);
  return {
    root,
    dispose: () => {
      spawnSync('umount', ['-l', root]);
      removeTree(work);
    },
  };
}

export type KillMode = 'kiln' | 'namespace';

export interface BootRun {
  ms: number;
  /** Whether the kill landed before the boot ended by itself. */
  killed: boolean;
}

/**
 * Boots ROOT (the four stages, in fresh PID, mount, UTS, IPC and network namespaces, chrooted). With KILL AT
 * MS, SIGKILLs at that moment either the running kiln only (the next stage still runs, as systemd goes on) or
 * the whole namespace (a power cut: everything stops at once). /run starts empty, as a tmpfs does at boot.
 */
export async function bootOnce(
  root: string,
  kill?: { atMs: number; mode: KillMode },
  timeoutMs = 180_000,
): Promise<BootRun> {
  rmSync(join(root, 'run/cloud-init'), { recursive: true, force: true });
  const started = Date.now();
  const child = spawn(
    'unshare',
    [
      '--uts',
      '--ipc',
      '--mount',
      '--pid',
      '--net',
      '--fork',
      '--kill-child',
      'chroot',
      root,
      '/bin/sh',
      '-c',
      BOOT_SCRIPT,
    ],
    {
      stdio: 'ignore',
      env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
    },
  );
  let killed = false;
  const timers: NodeJS.Timeout[] = [];
  const ended = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  timers.push(setTimeout(() => child.kill('SIGKILL'), timeoutMs));
  if (kill) {
    timers.push(
      setTimeout(() => {
        if (child.exitCode !== null || child.pid === undefined) return;
        killed = kill.mode === 'namespace' ? killNamespace(child.pid) : killKiln(child.pid);
      }, kill.atMs),
    );
  }
  await ended;
  for (const t of timers) clearTimeout(t);
  return { ms: Date.now() - started, killed };
}

/** Direct children of PID (from /proc). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** unshare's child is the namespace's init: SIGKILL to it ends every process in the namespace at once. */
function killNamespace(unsharePid: number): boolean {
  const init = childrenOf(unsharePid)[0];
  if (init === undefined) return false;
  process.kill(init, 'SIGKILL');
  return true;
}

/** SIGKILL to the kiln process the boot script is running now (the shell is the namespace's init). */
function killKiln(unsharePid: number): boolean {
  const init = childrenOf(unsharePid)[0];
  const kiln = init === undefined ? undefined : childrenOf(init)[0];
  if (kiln === undefined) return false;
  try {
    process.kill(kiln, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

function lines(root: string, path: string): string[] {
  const file = join(root, path);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/**
 * Files under DIR (recursively) whose names say they are kiln's staging files or shadow-utils' locks. A killed
 * write leaves its staging file (as Python's tempfile-then-rename leaves one for cloud-init); the target is
 * never half-written, and the account files' leftovers go when kiln next takes their locks.
 */
export function leftovers(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.kiln-[0-9a-f]+$/.test(e.name) || /^(passwd|shadow|group|gshadow|subuid|subgid)\.lock$/.test(e.name))
        found.push(p);
    }
  };
  walk(dir);
  return found;
}

/** What the killed boot left: the per-instance semaphores taken, and how often runcmd had run. */
export interface AtKill {
  sems: Set<string>;
  runs: number;
}

export function stateAtKill(root: string): AtKill {
  const semDir = join(root, 'var/lib/cloud/instances/iid-crash/sem');
  const sems = new Set(existsSync(semDir) ? readdirSync(semDir) : []);
  return { sems, runs: lines(root, 'var/tmp/runcmd-runs').length };
}

/**
 * What is wrong with ROOT after a completed boot that followed a killed one (AT KILL: what the killed boot
 * left). Nothing may be corrupt: account files parse, no line is doubled, no file is half-written, no lock or
 * staging file is left, status is done. Per-instance effects must be there unless their module's semaphore
 * was already taken when the boot was killed: as in cloud-init (helpers.py takes the semaphore before the
 * module runs), such a module is not run again, so its work may be missing, but never done twice.
 */
export function crashProblems(root: string, atKill: AtKill): string[] {
  const problems: string[] = [];
  const taken = (module: string) => atKill.sems.has(`config_${module}`);
  const alice = lines(root, 'etc/passwd').some((l) => l.startsWith('alice:'));
  const status = spawnSync(
    'unshare',
    ['--mount', '--pid', '--fork', 'chroot', root, '/usr/bin/cloud-init', 'status', '--format', 'json'],
    { encoding: 'utf8' },
  );
  let report: { status?: string; errors?: string[] } = {};
  try {
    report = JSON.parse(status.stdout) as typeof report;
  } catch {
    problems.push(
      `cloud-init status --format json printed no JSON (exit ${status.status}): ${status.stdout.slice(0, 300)}`,
    );
  }
  // The errors a boot may end with when users_groups was killed after taking its semaphore: as in cloud-init,
  // it is not run again, so the modules that need its user fail, naming it.
  const excused = (e: string) => !alice && taken('users_groups') && /alice/.test(e);
  const errors = (report.errors ?? []).filter((e) => !excused(e));
  if (errors.length) problems.push(`errors: ${errors.join(' | ')}`);
  if (report.status !== 'done' && !(report.status === 'error' && errors.length === 0))
    problems.push(`cloud-init status is ${report.status} (exit ${status.status})`);
  const fields: Record<string, number> = { 'etc/passwd': 7, 'etc/shadow': 9, 'etc/group': 4, 'etc/gshadow': 4 };
  for (const [file, n] of Object.entries(fields)) {
    const all = lines(root, file);
    if (all.length === 0) problems.push(`/${file} is empty`);
    const bad = all.filter((l) => l.split(':').length !== n);
    if (bad.length) problems.push(`/${file} has ${bad.length} malformed line(s): ${bad[0]}`);
    const names = all.map((l) => l.split(':')[0]);
    const doubled = names.filter((x, i) => names.indexOf(x) !== i);
    if (doubled.length) problems.push(`/${file} names ${doubled[0]} twice`);
  }
  if (!alice && !taken('users_groups')) problems.push('alice is missing from /etc/passwd');
  if (
    alice &&
    !taken('users_groups') &&
    !lines(root, 'home/alice/.ssh/authorized_keys').some((l) => l.includes('crash@test'))
  )
    problems.push("alice's authorized_keys lacks the key");
  const shadowAlice = lines(root, 'etc/shadow').find((l) => l.startsWith('alice:'));
  if (alice && !taken('set_passwords') && !shadowAlice?.split(':')[1]?.startsWith('$'))
    problems.push(`alice has no password hash in /etc/shadow: ${shadowAlice ?? '(no entry)'}`);
  if (lines(root, 'etc/hostname')[0] !== CRASH_SEED_HOSTNAME)
    problems.push(`/etc/hostname is ${JSON.stringify(lines(root, 'etc/hostname'))}`);
  const written = join(root, 'etc/crash/written');
  if (existsSync(written) ? readFileSync(written, 'utf8') !== 'complete file\n' : !taken('write_files'))
    problems.push('write_files left /etc/crash/written missing or incomplete');
  const runs = lines(root, 'var/tmp/runcmd-runs').length;
  if (runs > 1) problems.push(`runcmd's script (per instance) ran ${runs} times`);
  if (runs === 0 && !taken('runcmd') && !taken('scripts_user'))
    problems.push('runcmd never ran, though its modules had not started when the boot was killed');
  if (runs !== atKill.runs && (taken('scripts_user') || atKill.runs > 0))
    problems.push(`runcmd's script ran again after scripts_user's semaphore was taken (${atKill.runs} → ${runs})`);
  if (lines(root, 'var/tmp/bootcmd-runs').length < 1) problems.push('bootcmd did not run in the last boot');
  for (const json of [
    'run/cloud-init/instance-data.json',
    'run/cloud-init/status.json',
    'run/cloud-init/result.json',
  ]) {
    try {
      JSON.parse(readFileSync(join(root, json), 'utf8'));
    } catch (err) {
      problems.push(`/${json}: ${(err as Error).message}`);
    }
  }
  // A lock left by the kill must not block a later run: shadow-utils' own useradd, in a fresh namespace, must
  // get through at once (kiln's writer is tested against reused pids in stale-account-locks.test.ts).
  if (leftovers(join(root, 'etc')).some((f) => f.endsWith('.lock'))) {
    const probe = spawnSync(
      'unshare',
      ['--mount', '--pid', '--fork', 'chroot', root, 'useradd', '--system', 'lockprobe'],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (probe.status !== 0)
      problems.push(`a lock left by the kill blocks useradd: exit ${probe.status} ${probe.stderr.trim()}`);
  }
  return problems;
}

export interface CampaignResult {
  /** How long the undisturbed first boot took (the kill points spread over it). */
  wholeMs: number;
  kills: number;
  /** Kills that landed before the boot ended by itself. */
  landed: number;
  /** Staging files of killed writes left beside their targets. */
  staging: number;
  /** One entry per kill point with problems, naming the seed, mode and moment to replay it. */
  failures: string[];
}

/**
 * Prepares the rootfs under WORK with BINARY, times an undisturbed first boot (which must itself be clean),
 * then kills KILLS first boots at seeded-random moments, alternately kiln alone and the whole namespace,
 * boots each again and collects what is wrong. PROGRESS is told after each kill point.
 */
export async function crashCampaign(
  work: string,
  binary: string,
  kills: number,
  seed: number,
  progress: (done: number) => void = () => {},
): Promise<CampaignResult> {
  const lower = prepareCrashRootfs(join(work, 'lower'), binary);
  const clean = overlayMachine(lower, join(work, 'clean'));
  let wholeMs: number;
  try {
    wholeMs = (await bootOnce(clean.root)).ms;
    const problems = crashProblems(clean.root, { sems: new Set(), runs: 0 });
    if (problems.length) throw new Error(`an undisturbed first boot is not clean:\n  ${problems.join('\n  ')}`);
  } finally {
    clean.dispose();
  }
  const random = seededRandom(seed);
  const result: CampaignResult = { wholeMs, kills, landed: 0, staging: 0, failures: [] };
  // The moments are fractions of a boot's length; when a boot turns out faster than the timing run (a machine
  // whose load dropped), the length is taken from that boot and the same fraction tried once more on a fresh copy.
  let lengthMs = wholeMs;
  for (let i = 0; i < kills; i++) {
    const fraction = random();
    let atMs = Math.floor(fraction * lengthMs);
    const mode: KillMode = i % 2 === 0 ? 'kiln' : 'namespace';
    let machine = overlayMachine(lower, join(work, `m${i}`));
    try {
      let first = await bootOnce(machine.root, { atMs, mode });
      if (!first.killed && first.ms < lengthMs) {
        lengthMs = first.ms;
        atMs = Math.floor(fraction * lengthMs);
        machine.dispose();
        machine = overlayMachine(lower, join(work, `m${i}-again`));
        first = await bootOnce(machine.root, { atMs, mode });
      }
      if (first.killed) result.landed++;
      const atKill = stateAtKill(machine.root);
      await bootOnce(machine.root);
      const problems = crashProblems(machine.root, atKill);
      result.staging += leftovers(machine.root).filter((f) => !f.endsWith('.lock')).length;
      if (problems.length)
        result.failures.push(
          `kill ${i} (seed ${seed}, ${mode} at ${atMs} ms, semaphores taken then: ${[...atKill.sems].join(' ') || 'none'}):\n    ${problems.join('\n    ')}`,
        );
    } finally {
      machine.dispose();
    }
    progress(i + 1);
  }
  return result;
}
