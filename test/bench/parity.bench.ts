// Boot time and memory, kiln vs Debian's cloud-init 22.4, on the parity seeds in two copies of the Debian rootfs:
// per-stage and total wall time and peak RSS (medians of several runs), and kiln's --all-stages single process.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { copyRootfs } from '../helpers/debian-rootfs';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot } from '../helpers/requirements';
import { printTable } from './measure';
import { loadSeeds } from '../parity/seeds';
import { installKiln, runStage, seedRoot, STAGES, type StageRun } from '../parity/sandbox-stages';
import { removeTree } from '../helpers/overlay-copy';

const kiln = builtBinary('kiln-linux-x64');
if (!kiln) {
  console.log('dist/kiln-linux-x64 is not built; run node build.mjs linux-x64 first');
  process.exit(1);
}
if (!isRoot() || !hasCommand('unshare') || !hasCommand('debootstrap') || !hasCommand('/usr/bin/time')) {
  console.log('the parity benchmark needs root, unshare, debootstrap and GNU time (/usr/bin/time)');
  process.exit(1);
}
const RUNS = Number(process.env.KILN_BENCH_RUNS ?? 3);
const wanted = (process.env.KILN_BENCH_SEEDS ?? '04-,09-,11-').split(',').filter(Boolean);
const seeds = loadSeeds().filter((s) => wanted.some((w) => s.name.includes(w)));

const median = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? (s[Math.floor(s.length / 2)] as number) : NaN;
};
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
const mb = (kb: number) => (Number.isFinite(kb) ? (kb / 1024).toFixed(1) : '-');
const ratio = (a: number, b: number) =>
  Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(1)}x` : '-';

/** One first boot on a fresh copy; returns the stage runs (four, or one for --all-stages). */
function boot(seed: (typeof seeds)[number], side: 'cloud-init' | 'kiln' | 'kiln-all'): StageRun[] {
  const work = join(tmpdir(), `kiln-bench-${process.pid}-${side}`);
  removeTree(work);
  mkdirSync(work, { recursive: true });
  const root = join(work, 'root');
  mkdirSync(root);
  try {
    copyRootfs(root);
    if (side !== 'cloud-init') installKiln(root, kiln as string);
    seedRoot(root, seed);
    // The copy leaves ~350 MB for the disk to write back: flushed first, so that the boot is timed and not
    // the copy (a real first boot does not start behind a rootfs copy; both sides are timed alike).
    spawnSync('sync');
    if (side === 'kiln-all') return [runStage(root, { name: 'all-stages', args: ['--all-stages'] })];
    return STAGES.map((s) => runStage(root, s));
  } finally {
    removeTree(work);
  }
}

const rows: string[][] = [];
for (const seed of seeds) {
  const samples: Record<string, { ci: StageRun[]; k: StageRun[] }> = {};
  const all: StageRun[] = [];
  for (let i = 0; i < RUNS; i++) {
    const ci = boot(seed, 'cloud-init');
    const k = boot(seed, 'kiln');
    all.push(...boot(seed, 'kiln-all'));
    for (const [j, s] of STAGES.entries()) {
      samples[s.name] ??= { ci: [], k: [] };
      samples[s.name]?.ci.push(ci[j] as StageRun);
      samples[s.name]?.k.push(k[j] as StageRun);
    }
    const total = (runs: StageRun[]) => ({
      stage: 'total',
      code: 0,
      wallMs: runs.reduce((a, r) => a + r.wallMs, 0),
      maxRssKb: Math.max(...runs.map((r) => r.maxRssKb)),
      stderr: '',
    });
    samples.total ??= { ci: [], k: [] };
    samples.total.ci.push(total(ci));
    samples.total.k.push(total(k));
  }
  for (const [stage, { ci, k }] of Object.entries(samples)) {
    const cw = median(ci.map((r) => r.wallMs));
    const kw = median(k.map((r) => r.wallMs));
    const cr = median(ci.map((r) => r.maxRssKb));
    const kr = median(k.map((r) => r.maxRssKb));
    rows.push([seed.name, stage, ms(cw), ms(kw), ratio(cw, kw), mb(cr), mb(kr), ratio(cr, kr)]);
  }
  const cTotal = median((samples.total?.ci ?? []).map((r) => r.wallMs));
  const aw = median(all.map((r) => r.wallMs));
  const ar = median(all.map((r) => r.maxRssKb));
  const cr = median((samples.total?.ci ?? []).map((r) => r.maxRssKb));
  rows.push([
    seed.name,
    'kiln --all-stages vs 4 stages',
    ms(cTotal),
    ms(aw),
    ratio(cTotal, aw),
    mb(cr),
    mb(ar),
    ratio(cr, ar),
  ]);
}
console.log(
  `median of ${RUNS} first boots per seed; each in a fresh copy of the Debian rootfs, under unshare + chroot`,
);
printTable(['seed', 'stage', 'cloud-init ms', 'kiln ms', 'speed-up', 'cloud-init MB', 'kiln MB', 'memory ratio'], rows);
