// The esbuild plugin behind `import ... from 'kiln:validators'`: the validating code of kiln's JSON Schemas, generated
// at build time by Ajv's standalone mode (src/config/schema/standalone-validators.ts, bundled in memory and run here),
// so that the binary never compiles a schema. The code needs a few of Ajv's runtime helpers (deep equality, string
// length), which are always bundled with it, also into test bundles that leave packages external.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const repo = dirname(fileURLToPath(import.meta.url));
const requireHere = createRequire(import.meta.url);

let generated;

/** The standalone code of every schema (made once per process). */
export function validatorsCode() {
  generated ??= (async () => {
    const out = await esbuild.build({
      entryPoints: [join(repo, 'src', 'config', 'schema', 'standalone-validators.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      packages: 'external',
      write: false,
      logLevel: 'warning',
    });
    const module = { exports: {} };
    new Function('module', 'exports', 'require', out.outputFiles[0].text)(module, module.exports, requireHere);
    return module.exports.standaloneValidatorsCode();
  })();
  return generated;
}

export function validatorsPlugin() {
  return {
    name: 'kiln-validators',
    setup(build) {
      build.onResolve({ filter: /^kiln:validators$/ }, () => ({
        path: 'kiln-validators',
        namespace: 'kiln-validators',
      }));
      build.onLoad({ filter: /.*/, namespace: 'kiln-validators' }, async () => ({
        contents: await validatorsCode(),
        loader: 'js',
        resolveDir: repo,
      }));
      build.onResolve({ filter: /^ajv\/dist\/runtime\//, namespace: 'kiln-validators' }, (args) => ({
        path: requireHere.resolve(args.path),
      }));
    },
  };
}
