// `npm run bench -- boot`: the boot timeline of kiln beside Debian's cloud-init (Debian 13's 25.1 by default,
// KILN_BOOT_BENCH_SUITE=bookworm for Debian 12's 22.4): the same bootable Debian tree
// with either one installed, the same NoCloud seed and the same qemu settings; per stage, when it ran (seconds since
// qemu start, from systemd's timestamps of the stage units) and its share of the time to the end of the final stage.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import {
  parseBootTimeline,
  STAGE_UNIT_NAMES,
  STAGE_UNITS,
  stagesSeconds,
  TIMELINE_PROBE_SHELL,
  type BootTimeline,
  type StageTiming,
} from '../helpers/boot-timeline';
import { copyBootRootfs, ensureBootRootfs, type DebianSuite } from '../helpers/debian-rootfs';
import {
  accelerator,
  bootQemu,
  consoleTail,
  installProbeUnit,
  makeBootImage,
  maskSerialGetty,
  readConsoleLog,
  type BootImage,
  type ConsoleLine,
} from '../helpers/qemu-boot';
import { builtBinary, REPO } from '../helpers/repo';
import { hasCommand, isRoot } from '../helpers/requirements';
import { printTable } from './measure';
import { removeTree } from '../helpers/overlay-copy';
import { longestGaps, STAGE_LOG_PROBE_SHELL, stageLogLines, stageLogParts } from '../helpers/stage-log-gaps';

/** Boots per side; each boots a fresh copy of the side's disk (a first boot every time). */
const ROUNDS = Number(process.env.KILN_BOOT_BENCH_ROUNDS ?? 2);
/**
 * The Debian release both sides boot: trixie (cloud-init 25.1, the reference) unless KILN_BOOT_BENCH_SUITE says
 * bookworm.
 */
const SUITE: DebianSuite = process.env.KILN_BOOT_BENCH_SUITE === 'bookworm' ? 'bookworm' : 'trixie';
const CLOUD_INIT = SUITE === 'trixie' ? 'cloud-init 25.1' : 'cloud-init 22.4';
/**
 * One boot's hard limit: a TCG boot to the end of final took 70–200 s on the 2-core VM at a load of 7–13, and
 * 355 s with its load at 74; a stalled guest is killed at the limit and the bench fails.
 */
const BOOT_TIMEOUT_MS = Number(process.env.KILN_BOOT_TIMEOUT_MS ?? 600_000);

const META_DATA = 'instance-id: iid-kiln-boot-bench\nlocal-hostname: kiln-bench-meta\n';

/** What a small first boot typically asks for: a hostname, a locale, the default user's password, a file, a command. */
const USER_DATA = `#cloud-config
hostname: kiln-bench-guest
# The image's /etc/locale.gen enables no locale, so the default en_US.UTF-8 fails update-locale (with Debian's
# cloud-init as with kiln) and the config stage exits non-zero; C.UTF-8 needs no generation.
locale: C.UTF-8
password: kilnlab
chpasswd: {expire: false}
ssh_pwauth: true
write_files:
  - path: /var/lib/kiln-bench/marker
    content: "written by write_files\\n"
runcmd:
  - [sh, -c, 'echo "KILN-BENCH-RUNCMD $(cat /var/lib/kiln-bench/marker)" > /dev/ttyS0']
`;

/** The image's probe: once the final stage is over, the stage units' timestamps on the console, then a poweroff. */
const PROBE_SCRIPT = `#!/bin/sh
say() { printf '%s\\n' "$*" > /dev/ttyS0; }
# After= orders the probe behind cloud-final.service; the wait covers a final stage that is started late all the same.
i=0
while [ "$(systemctl show -p ActiveEnterTimestampMonotonic --value cloud-final.service)" = 0 ] && [ "$(systemctl is-failed cloud-final.service)" != failed ] && [ $i -lt 600 ]; do
  i=$((i+1)); sleep 0.5
done
${TIMELINE_PROBE_SHELL}
${STAGE_LOG_PROBE_SHELL}
say "TIMELINE-END"
systemctl poweroff
`;

type Side = 'kiln' | 'cloud-init';
const BOTH_SIDES: readonly Side[] = ['kiln', 'cloud-init'];
/**
 * The sides booted: both unless KILN_BOOT_BENCH_SIDES names one (`kiln`: a look at kiln's own stages in a few
 * minutes, with no comparison; the figures to quote always boot both, alternating).
 */
const SIDES: readonly Side[] = BOTH_SIDES.filter((side) =>
  (process.env.KILN_BOOT_BENCH_SIDES ?? BOTH_SIDES.join(',')).split(',').includes(side),
);

/** Why the bench cannot give figures (like every error here, printed without a stack; the bench exits 1). */
class BootBenchError extends Error {}

function fail(message: string): never {
  throw new BootBenchError(message);
}

function sh(cmd: string, args: string[], cwd?: string): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0)
    fail(`${cmd} ${args.join(' ')} failed (${r.status ?? r.error?.message}): ${(r.stderr || r.stdout).slice(-2000)}`);
  return r.stdout;
}

/** The built binary, built first when missing (a clean clone). */
function kilnBinary(): string {
  const built = builtBinary('kiln-linux-x64');
  if (built) return built;
  console.log('dist/kiln-linux-x64 is not built: building it (node build.mjs linux-x64)');
  const r = spawnSync(process.execPath, ['build.mjs', 'linux-x64'], { cwd: REPO, stdio: 'inherit' });
  return (r.status === 0 && builtBinary('kiln-linux-x64')) || fail('node build.mjs linux-x64 failed');
}

/**
 * A disk of the bootable tree with SIDE installed (kiln by its install verb, or Debian's cloud-init package) and the
 * probe.
 */
function prepareImage(work: string, side: Side, kiln: string): BootImage {
  const dir = join(work, side);
  const root = join(dir, 'rootfs');
  mkdirSync(root, { recursive: true });
  copyBootRootfs(root, { cloudInit: side === 'cloud-init', suite: SUITE });
  if (side === 'kiln') {
    sh(kiln, ['install', '--root', root]);
  }
  installProbeUnit(root, 'kiln-bench-probe', PROBE_SCRIPT, STAGE_UNIT_NAMES);
  maskSerialGetty(root);
  const image = makeBootImage(root, dir);
  removeTree(root);
  return image;
}

/** The timeline of one boot's console, checked: every stage exited 0 and runcmd ran. */
function timelineOf(lines: readonly ConsoleLine[]): BootTimeline {
  try {
    const timeline = parseBootTimeline(lines);
    if (!lines.some((l) => l.text.includes('KILN-BENCH-RUNCMD written by write_files')))
      throw new Error('runcmd did not run (no KILN-BENCH-RUNCMD line)');
    const failed = timeline.stages.filter((st) => st.result !== 'success');
    if (failed.length > 0)
      throw new Error(`stage units did not succeed: ${failed.map((st) => `${st.stage} ${st.result}`).join(', ')}`);
    return timeline;
  } catch (err) {
    throw new Error(`${(err as Error).message}\n--- console tail ---\n${consoleTail(lines)}`);
  }
}

/**
 * Where the stages' time went on one boot, from the side's own cloud-init.log: each stage's logged span and the part
 * of it other programs took, then init-local's longest pauses, each with the line logged before it (the step that
 * was running).
 */
function printStageSteps(side: Side, round: number, lines: readonly ConsoleLine[]): void {
  const parts = stageLogParts(stageLogLines(lines));
  if (parts.length === 0) {
    console.log(`  ${side}, round ${round}: no stage lines of cloud-init.log on the console`);
    return;
  }
  const spans = parts.map((p) => `${p.stage} ${s(p.span)} (programs ${s(p.commands)})`).join(', ');
  console.log(`  ${side}, round ${round}: logged spans, s: ${spans}`);
  const local = parts.find((p) => p.stage === 'init-local');
  if (!local) return;
  console.log(`  ${side}, round ${round}: init-local's longest pauses, after:`);
  for (const gap of longestGaps(local.lines, 8))
    console.log(`    ${gap.seconds.toFixed(2).padStart(6)} s  ${gap.before.slice(0, 150)}`);
}

/** One first boot of SIDE's pristine disk (copied, so every round is a first boot) and its timeline. */
async function bootOnce(
  work: string,
  side: Side,
  image: BootImage,
  seed: string,
  round: number,
  accel: 'kvm' | 'tcg',
): Promise<BootTimeline> {
  const disk = join(work, `${side}-round${round}.raw`);
  sh('cp', ['--sparse=always', '--reflink=auto', image.disk, disk]);
  const log = join(work, `${side}-round${round}.log`);
  try {
    const result = await bootQemu({ image: { ...image, disk }, seed, timeoutMs: BOOT_TIMEOUT_MS, logFile: log, accel });
    const timeline = timelineOf(result.lines);
    printStageSteps(side, round, result.lines);
    return timeline;
  } catch (err) {
    fail(`${side}, round ${round}: ${(err as Error).message}\n(the whole console: ${log}, kept)`);
  } finally {
    rmSync(disk, { force: true });
  }
}

/** The timelines of the consoles a kept run left in DIR (KILN_BOOT_KEEP=1), read again without booting. */
function replay(dir: string): Record<Side, BootTimeline[]> {
  const timelines: Record<Side, BootTimeline[]> = { kiln: [], 'cloud-init': [] };
  for (const side of SIDES) {
    for (let round = 1; existsSync(join(dir, `${side}-round${round}.log`)); round++) {
      const log = join(dir, `${side}-round${round}.log`);
      try {
        const lines = readConsoleLog(readFileSync(log, 'utf8'));
        timelines[side].push(timelineOf(lines));
        printStageSteps(side, round, lines);
      } catch (err) {
        fail(`${log}: ${(err as Error).message}`);
      }
    }
    if (timelines[side].length === 0) fail(`no ${side}-round1.log in ${dir}`);
  }
  return timelines;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const s = (x: number) => x.toFixed(1);
const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(0)} %`;

/** The side-by-side table of the medians over the rounds of each side. */
function printTimelines(timelines: Record<Side, BootTimeline[]>): void {
  console.log(
    `\nmedians of ${timelines.kiln.length} kiln and ${timelines['cloud-init'].length} cloud-init boot(s), seconds since qemu start; share = the stage's time / the time to the end of final\n`,
  );
  // A side not booted (KILN_BOOT_BENCH_SIDES) has no median: NaN, printed as such.
  const m = (side: Side, f: (t: BootTimeline) => number) =>
    timelines[side].length > 0 ? median(timelines[side].map(f)) : Number.NaN;
  const point = (label: string, f: (t: BootTimeline) => number) => [
    label,
    ...BOTH_SIDES.flatMap((side) => [s(m(side, f)), '', '']),
  ];
  const rows: string[][] = [
    point('kernel start', (t) => t.kernelStart),
    point('systemd start', (t) => t.userspaceStart),
  ];
  for (const [i, { stage }] of STAGE_UNITS.entries()) {
    rows.push([
      stage,
      ...BOTH_SIDES.flatMap((side) => {
        const start = m(side, (t) => (t.stages[i] as { start: number }).start);
        const end = m(side, (t) => (t.stages[i] as { end: number }).end);
        const took = m(side, (t) => (t.stages[i] as { end: number }).end - (t.stages[i] as { start: number }).start);
        return [
          `${s(start)} → ${s(end)}`,
          s(took),
          pct(
            took,
            m(side, (t) => t.finalEnd),
          ),
        ];
      }),
    ]);
  }
  rows.push(point('end of final', (t) => t.finalEnd));
  rows.push([
    'the four stages',
    ...BOTH_SIDES.flatMap((side) => [
      '',
      s(m(side, stagesSeconds)),
      pct(
        m(side, stagesSeconds),
        m(side, (t) => t.finalEnd),
      ),
    ]),
  ]);
  printTable(
    ['', 'kiln: s from qemu start', 'took s', 'share', `${CLOUD_INIT}: s from qemu start`, 'took s', 'share'],
    rows,
  );

  // The program's own start-up in each stage: from the unit's start to the stage's banner line.
  const startup = STAGE_UNITS.map(({ stage }, i) => [
    stage,
    ...BOTH_SIDES.map((side) => {
      const waits = timelines[side]
        .map((t) => t.stages[i] as StageTiming)
        .filter((st) => st.banner !== undefined)
        .map((st) => (st.banner as number) - st.start);
      return waits.length === timelines[side].length ? s(median(waits)) : 'no banner';
    }),
  ]);
  console.log('\nfrom the unit\'s start to the stage\'s "Cloud-init v. … running" line (the program starting up), s\n');
  printTable(['stage', 'kiln', CLOUD_INIT], startup);
}

/** The guest kernel's file name in the bootable tree (both images have the same). */
function guestKernel(): string {
  return (
    readdirSync(join(ensureBootRootfs(SUITE), 'boot'))
      .filter((n) => n.startsWith('vmlinuz-'))
      .sort()
      .at(-1) ?? 'no kernel'
  );
}

/** The host's 1, 5 and 15 minute load averages: TCG's speed depends on what else the host's cores run. */
function load(): string {
  return loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
}

function cpuModel(): string {
  return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
}

async function main(): Promise<void> {
  const kept = process.env.KILN_BOOT_BENCH_CONSOLES;
  if (kept) {
    const timelines = replay(kept);
    console.log(`the kept consoles in ${kept}, read again`);
    printTimelines(timelines);
    return;
  }
  if (SIDES.length === 0)
    fail(`KILN_BOOT_BENCH_SIDES must name kiln, cloud-init or both, not ${process.env.KILN_BOOT_BENCH_SIDES}`);
  if (!Number.isInteger(ROUNDS) || ROUNDS < 1)
    fail(`KILN_BOOT_BENCH_ROUNDS must be a whole number of at least 1, not ${process.env.KILN_BOOT_BENCH_ROUNDS}`);
  if (!(BOOT_TIMEOUT_MS > 0))
    fail(`KILN_BOOT_TIMEOUT_MS must be a number of milliseconds, not ${process.env.KILN_BOOT_TIMEOUT_MS}`);
  const missing = ['qemu-system-x86_64', 'debootstrap', 'mkfs.ext4', 'sfdisk', 'unshare', 'chroot'].filter(
    (c) => !hasCommand(c),
  );
  if (!isRoot()) fail('needs root (debootstrap, chroot, and images whose files keep their owners)');
  if (missing.length > 0)
    fail(
      `missing ${missing.join(', ')} (apt-get install qemu-system-x86 qemu-utils debootstrap e2fsprogs fdisk util-linux)`,
    );

  const kiln = kilnBinary();
  const work = mkdtempSync('/var/tmp/kiln-boot-bench-');
  let ok = false;
  try {
    const seedDir = join(work, 'seed');
    mkdirSync(seedDir);
    writeFileSync(join(seedDir, 'user-data'), USER_DATA);
    writeFileSync(join(seedDir, 'meta-data'), META_DATA);
    const seed = join(work, 'seed.iso');
    sh(kiln, ['make-seed', '-o', seed, seedDir]);

    const images = {} as Record<Side, BootImage>;
    for (const side of SIDES) images[side] = prepareImage(work, side, kiln);
    const accel = accelerator((images[SIDES[0] as Side] as BootImage).kernel);
    const qemuVersion = sh('qemu-system-x86_64', ['--version']).split('\n')[0];
    const loadAtStart = load();
    console.log(
      `${cpuModel()}, ${cpus().length} cores, load average ${loadAtStart}; ${qemuVersion}; accel=${accel}${accel === 'tcg' ? ' -cpu max' : ' -cpu host'}, -m 1024 -smp 2`,
    );
    console.log(
      `${sh(kiln, ['--version']).trim()}; guest ${guestKernel()}; ${ROUNDS} round(s), each a first boot of a fresh disk copy\n`,
    );

    const timelines: Record<Side, BootTimeline[]> = { kiln: [], 'cloud-init': [] };
    for (let round = 1; round <= ROUNDS; round++) {
      // The order alternates, so neither side always boots on a host warmed up by the other.
      const order = round % 2 ? SIDES : [...SIDES].reverse();
      for (const side of order) {
        const t = await bootOnce(work, side, images[side], seed, round, accel);
        timelines[side].push(t);
        const stages = t.stages.map((st) => `${st.stage} ${s(st.start)}→${s(st.end)}`).join(', ');
        console.log(
          `round ${round} ${side}: kernel ${s(t.kernelStart)}, systemd ${s(t.userspaceStart)}, ${stages}; final done ${s(t.finalEnd)} s (host load ${load()})`,
        );
      }
    }
    console.log(`host load average at the end: ${load()} (at the start: ${loadAtStart})`);
    printTimelines(timelines);
    ok = true;
  } finally {
    if (ok && process.env.KILN_BOOT_KEEP !== '1') removeTree(work);
    else {
      // The consoles stay for a look; the disks (gigabytes, sparse) go.
      for (const side of SIDES) rmSync(join(work, side, 'disk.raw'), { force: true });
      console.log(`kept ${work}`);
    }
  }
}

try {
  await main();
} catch (err) {
  // The helpers' errors (no kernel in the tree: BootFailure; a failed debootstrap or apt) say what to do as well.
  if (!(err instanceof Error)) throw err;
  console.error(`boot bench: ${err.message}`);
  process.exitCode = 1;
}
