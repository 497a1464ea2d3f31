// Ajv and the schemas stay off kiln's start path, and the binary does not compile schemas: the bundle, made with the
// release build's options (but not minified, so that esbuild names each package module's wrapper after its file),
// evaluates none of Ajv's modules for `--version`; `schema` runs the validators generated at build time (with at most
// Ajv's runtime helpers), and Ajv's compiler only with KILN_SCHEMA_COMPILE=runtime. V8's precise coverage of the
// bundle says which module wrappers ran.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/repo';
import { tempDir } from '../helpers/temp';

/** Bundles src/main.ts into DIR as build.mjs does (in a child: build.mjs is not part of the test bundle). */
function bundleMain(dir: string): string {
  const outfile = join(dir, 'kiln.cjs');
  const script = `
    const esbuild = await import('esbuild');
    const build = await import(${JSON.stringify(join(REPO, 'build.mjs'))});
    const { validatorsPlugin } = await import(${JSON.stringify(join(REPO, 'build-validators.mjs'))});
    await esbuild.build({ ...build.BUNDLE_OPTIONS, minify: false, entryPoints: [${JSON.stringify(join(REPO, 'src', 'main.ts'))}],
      outfile: ${JSON.stringify(outfile)}, plugins: [build.targetPlugin(build.hostTarget(), { embedAddon: false }), validatorsPlugin()] });`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: REPO });
  assert.equal(r.status, 0, r.stderr);
  return outfile;
}

/** The package modules (node_modules/… paths) whose wrappers ran while the bundle ran with ARGS. */
function evaluatedPackageModules(bundle: string, dir: string, args: string[], env: NodeJS.ProcessEnv = {}): string[] {
  const coverage = join(dir, `coverage-${args.join('').replace(/\W/g, '')}-${Object.keys(env).join('')}`);
  const r = spawnSync(process.execPath, [bundle, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env, KILN_FACE: 'kiln', NODE_V8_COVERAGE: coverage },
  });
  assert.ok(r.status === 0 || r.status === 1, `kiln ${args.join(' ')} ended ${r.status}: ${r.stderr}`);
  const ran = new Set<string>();
  for (const file of readdirSync(coverage)) {
    const report = JSON.parse(readFileSync(join(coverage, file), 'utf8')) as {
      result: Array<{ url: string; functions: Array<{ functionName: string; ranges: Array<{ count: number }> }> }>;
    };
    for (const script of report.result) {
      if (!script.url.endsWith('/kiln.cjs')) continue;
      for (const f of script.functions)
        if (f.functionName.startsWith('node_modules/') && (f.ranges[0]?.count ?? 0) > 0) ran.add(f.functionName);
    }
  }
  return [...ran];
}

test('--version evaluates none of Ajv; schema -c runs the validators generated at build time, Ajv compiles only when asked', (t) => {
  const dir = tempDir(t, 'kiln-lazy-');
  const bundle = bundleMain(dir);
  const ajv = (modules: string[]) => modules.filter((m) => m.startsWith('node_modules/ajv/'));
  const compiler = (modules: string[]) => ajv(modules).filter((m) => !m.startsWith('node_modules/ajv/dist/runtime/'));

  const atVersion = evaluatedPackageModules(bundle, dir, ['--version']);
  assert.ok(atVersion.length > 0, 'the coverage names the package modules that ran (yaml, minimist)');
  assert.deepEqual(ajv(atVersion), []);

  const doc = join(dir, 'user-data.yaml');
  writeFileSync(doc, '#cloud-config\nruncmd: ls\nusers: [{name: a, uid: "1"}]\n');
  const atSchema = evaluatedPackageModules(bundle, dir, ['schema', '-c', doc]);
  assert.ok(atSchema.includes('node_modules/yaml/dist/index.js'), 'schema -c read the document');
  assert.deepEqual(compiler(atSchema), []);

  const compiling = evaluatedPackageModules(bundle, dir, ['schema', '-c', doc], { KILN_SCHEMA_COMPILE: 'runtime' });
  assert.ok(compiler(compiling).includes('node_modules/ajv/dist/core.js'), compiling.join(', '));
});
