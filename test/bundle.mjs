// Finds test or bench files and bundles them with esbuild, the one way test code is built (test/run.mjs,
// test/bench/run.mjs).
import { readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { hostTarget, targetPlugin } from '../build.mjs';
import { validatorsPlugin } from '../build-validators.mjs';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Files under DIR whose names end with SUFFIX (fixtures and node_modules skipped), filtered by substrings. */
export function findFiles(dir, suffix, filters = []) {
  const found = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (name === 'fixtures' || name === 'node_modules') continue;
    if (statSync(full).isDirectory()) found.push(...findFiles(full, suffix));
    else if (name.endsWith(suffix)) found.push(full);
  }
  return found.filter((f) => filters.length === 0 || filters.some((p) => relative(repo, f).includes(p)));
}

/** Bundles ENTRIES (under test/) into OUTDIR as .mjs files and returns their paths, in the same order. */
export async function bundleTests(entries, outDir) {
  rmSync(outDir, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: entries,
    outdir: outDir,
    outbase: join(repo, 'test'),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    packages: 'external',
    plugins: [targetPlugin(hostTarget(), { embedAddon: false }), validatorsPlugin()],
    logLevel: 'warning',
  });
  return entries.map((t) => join(outDir, relative(join(repo, 'test'), t)).replace(/\.ts$/, '.mjs'));
}
