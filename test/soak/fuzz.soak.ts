// `npm run soak -- fuzz [--iterations N] [--seed S] [--target NAME]`: N (default 100 000) seeded mutants per
// text and message parser plus the hostile inputs (test/helpers/parser-fuzz.ts), each parser in a worker with
// memory capped; then the device readers' fuzz (ISO 9660, FAT12/16/32, MBR and GPT disks with growpart on each:
// test/devices/fuzz.test.ts; UDF: test/devices/udf-fuzz.test.ts) at the same count. Exit 1 at the first crash,
// hang, input over budget or memory runaway, naming its seed.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isMainThread, workerData } from 'node:worker_threads';
import minimist from 'minimist';
import { FUZZ_TARGETS, fuzzTarget, fuzzWorkerMain } from '../helpers/parser-fuzz';
import { REPO } from '../helpers/repo';

if (!isMainThread) {
  fuzzWorkerMain(workerData as { target: string; iterations: number; seed: number });
} else {
  const argv = minimist(process.argv.slice(2), { string: ['iterations', 'seed', 'target'] });
  const iterations = Number(argv.iterations ?? 100_000);
  const seed = Number(argv.seed ?? Date.now() % 2 ** 31);
  const targets = FUZZ_TARGETS.filter((t) => !argv.target || t.name === argv.target);
  if (!Number.isInteger(iterations) || iterations < 1 || targets.length === 0) {
    console.error(`fuzz soak: --iterations N ≥ 1; --target one of ${FUZZ_TARGETS.map((t) => t.name).join(', ')}`);
    process.exit(2);
  }
  let failed = 0;
  for (const t of targets) {
    const started = Date.now();
    const r = await fuzzTarget(fileURLToPath(import.meta.url), t.name, iterations, seed, 120_000);
    const secs = Math.round((Date.now() - started) / 1000);
    if (r.kind === 'done')
      console.log(
        `${t.name}: ${r.inputs} inputs (seed ${seed}), ${r.rejected} rejected with a clear error, 0 crashes, hangs or runaways, ${secs} s`,
      );
    else {
      failed++;
      console.log(`${t.name}: FAILED (seed ${seed}) ${JSON.stringify(r, null, 2)}`);
    }
  }
  if (!argv.target) {
    console.log(`device readers: ${iterations} mutants per image (test/devices/fuzz.test.ts, udf-fuzz.test.ts)`);
    const d = spawnSync(process.execPath, [`${REPO}/test/run.mjs`, 'devices/fuzz', 'devices/udf-fuzz'], {
      stdio: 'inherit',
      env: { ...process.env, KILN_FUZZ_ITERATIONS: String(iterations) },
    });
    if (d.status !== 0) failed++;
  }
  process.exitCode = failed ? 1 : 0;
}
