// Builds one self-contained kiln executable per target in targets/: esbuild bundles src/main.ts with the
// target's default config embedded, then @yao-pkg/pkg's SEA mode bakes the bundle, with koffi's addon for the
// target beside it, into the official Node binary of that target. Only the npm registry is contacted.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
  copyFileSync,
  rmSync,
  chmodSync,
  renameSync,
  realpathSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { bundledNotices, bundledPackageDirs, cycloneDx } from './sbom.mjs';
import { validatorsPlugin } from './build-validators.mjs';
import { buildDeb } from './deb.mjs';
import { buildMsi, wixlVersion } from './msi.mjs';

const repo = dirname(fileURLToPath(import.meta.url));
const cacheDir = join(repo, '.cache');
const packageJson = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));

/** Every target described in targets/, by name. */
export function loadTargets() {
  const dir = join(repo, 'targets');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The target this machine can run (tests use it). */
export function hostTarget() {
  const os = process.platform === 'win32' ? 'win' : process.platform;
  const found = loadTargets().find((t) => t.os === os && t.arch === process.arch);
  if (!found) throw new Error(`no target in targets/ for this host (${os}-${process.arch})`);
  return found;
}

/** Fetches NAME@VERSION from the npm registry once into .cache/npm and returns the unpacked folder. */
export function npmPackage(name, version) {
  const unpacked = join(cacheDir, 'npm', `${name.replace('/', '+')}@${version}`);
  if (existsSync(join(unpacked, '.ok'))) return unpacked;
  rmSync(unpacked, { recursive: true, force: true });
  mkdirSync(unpacked, { recursive: true });
  const tarballs = join(cacheDir, 'npm', 'tarballs');
  mkdirSync(tarballs, { recursive: true });
  console.log(`fetching ${name}@${version} from the npm registry`);
  const out = execFileSync('npm', ['pack', '--silent', '--pack-destination', tarballs, `${name}@${version}`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const tarball = join(tarballs, out.trim().split('\n').pop());
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
  rmSync(tarball);
  writeFileSync(join(unpacked, '.ok'), '');
  return unpacked;
}

/** A Node binary of the targets' version that runs on this host: pkg must generate the SEA blob with it. */
function hostNode(version) {
  const os = process.platform === 'win32' ? 'win' : process.platform;
  const dir = npmPackage(`node-${os}-${process.arch}`, version);
  return join(dir, 'bin', os === 'win' ? 'node.exe' : 'node');
}

/**
 * Places the target's Node binary where pkg's SEA mode looks for it (~/.pkg-cache/sea under the HOME we
 * give pkg), with the archive and extraction markers that make pkg skip its own download from nodejs.org.
 * The Linux bases are stripped of their symbol table first where a strip for that architecture exists.
 */
function seedPkgCache(target, pkgHome) {
  const version = target.node.version;
  const sea = join(pkgHome, '.pkg-cache', 'sea');
  mkdirSync(sea, { recursive: true });
  const base = `node-v${version}-${target.os}-${target.arch}`;
  const archive = join(sea, `${base}.${target.os === 'win' ? 'zip' : 'tar.gz'}`);
  const extracted = target.os === 'win' ? join(sea, `${base}.exe`) : join(sea, base, 'bin', 'node');
  const source = join(npmPackage(target.node.package, version), target.node.file);
  const stamp = `${version} ${statSync(source).size} strip=${target.strip ?? 'none'}`;
  if (existsSync(`${extracted}.ok`) && readFileSync(`${extracted}.ok`, 'utf8') === stamp) return;
  mkdirSync(dirname(extracted), { recursive: true });
  // Prepared under a private name and renamed, so concurrent builds never see a half-written base.
  const temp = `${extracted}.${process.pid}.tmp`;
  copyFileSync(source, temp);
  chmodSync(temp, 0o755);
  if (target.strip) {
    if (commandExists(target.strip)) execFileSync(target.strip, ['--strip-all', temp]);
    else console.warn(`warning: ${target.strip} not found; ${target.name} keeps Node's symbol table`);
  }
  renameSync(temp, extracted);
  // pkg only checks that the archive exists next to its marker; it is never opened once the binary is there.
  writeFileSync(archive, `placeholder: ${target.node.package}@${version} from the npm registry, see build.mjs\n`);
  writeFileSync(`${archive}.ok`, '');
  writeFileSync(`${extracted}.ok`, stamp);
}

function commandExists(cmd) {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The binary's asset that holds koffi's addon. */
const KOFFI_ASSET = 'koffi.node';

/** koffi's prebuilt addon for TARGET (fetched from the npm registry once), of the koffi version kiln uses. */
function koffiAddonFile(target) {
  const koffiVersion = JSON.parse(readFileSync(join(repo, 'node_modules/koffi/package.json'), 'utf8')).version;
  return { version: koffiVersion, file: join(npmPackage(target.koffi.package, koffiVersion), target.koffi.file) };
}

let yamlReader;

/**
 * kiln's own YAML reader (src/config/read-yaml.ts), bundled in memory and loaded here, so that the default
 * cloud.cfg a binary embeds is read by build and tests exactly as a boot reads a cloud.cfg on disk.
 */
async function readYamlAtBuild() {
  if (!yamlReader) {
    yamlReader = (async () => {
      const out = await esbuild.build({
        entryPoints: [join(repo, 'src', 'config', 'read-yaml.ts')],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        write: false,
        logLevel: 'warning',
      });
      const module = { exports: {} };
      new Function('module', 'exports', 'require', out.outputFiles[0].text)(
        module,
        module.exports,
        createRequire(import.meta.url),
      );
      return module.exports.readYaml;
    })();
  }
  return yamlReader;
}

/** Throws unless VALUE survives JSON unchanged (no dates, binary, sets or numbers JSON cannot write). */
function assertJsonData(value, where) {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return;
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) assertJsonData(v, `${where}[${i}]`);
    return;
  } else if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) assertJsonData(v, `${where}.${k}`);
    return;
  }
  throw new Error(`${where}: ${String(value)} cannot be embedded as JSON; write it as a string`);
}

/** The target's default cloud.cfg read into the value a boot starts from, or undefined when the target has none. */
async function defaultCloudConfig(target) {
  const file = target.defaultConfigs['cloud.cfg'];
  if (file === undefined) return undefined;
  const value = (await readYamlAtBuild())(readFileSync(join(repo, file), 'utf8'), file);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${file}: expected a mapping at the top level`);
  assertJsonData(value, file);
  return value;
}

/**
 * The esbuild plugin behind `import ... from 'kiln:target'`: the build facts, default configs (cloud.cfg also as
 * the value the YAML reader makes of it, so no boot parses it) and files `kiln install` writes for one target,
 * and which asset holds koffi's addon (bake adds it). Tests use it with the host target, without the
 * addon (they name a koffi addon file in KILN_KOFFI_ADDON instead).
 */
/** Windows' names for the processor architectures of the targets, as answer files write them. */
const WINDOWS_ARCH = { x64: 'amd64', arm64: 'arm64' };

/**
 * An install file as TARGET ships it: an answer file (Unattend.xml) names the processor architecture of each component,
 * and Windows Setup ignores a component of another architecture, so each Windows target gets its own.
 */
function forTarget(target, name, text) {
  if (target.os !== 'win' || !name.endsWith('.xml')) return text;
  const arch = WINDOWS_ARCH[target.arch];
  if (!arch) throw new Error(`${target.name}: no Windows processor architecture for ${target.arch}`);
  return text.replace(/processorArchitecture="[^"]*"/g, `processorArchitecture="${arch}"`);
}

/**
 * What `kiln install` puts in place for TARGET (systemd units and generator; the Windows confs), so that the binary
 * alone can install itself, and what its Debian package and MSI ship: name → { text, mode }. An entry of targets/ is
 * a path (a 0644 file) or { file, mode } with the octal mode the file is installed with.
 */
export function targetInstallFiles(target) {
  const installFiles = {};
  for (const [name, entry] of Object.entries(target.installFiles ?? {})) {
    const { file, mode } = typeof entry === 'string' ? { file: entry, mode: '0644' } : entry;
    if (!/^0[0-7]{3}$/.test(mode))
      throw new Error(
        `${target.name}: installFiles.${name}: mode must be octal like "0755", not ${JSON.stringify(mode)}`,
      );
    installFiles[name] = {
      text: forTarget(target, name, readFileSync(join(repo, file), 'utf8')),
      mode: Number.parseInt(mode, 8),
    };
  }
  return installFiles;
}

export function targetPlugin(target, { embedAddon = true } = {}) {
  return {
    name: 'kiln-target',
    setup(build) {
      build.onResolve({ filter: /^kiln:target$/ }, () => ({ path: 'kiln-target', namespace: 'kiln' }));
      build.onLoad({ filter: /.*/, namespace: 'kiln' }, async () => {
        const configs = {};
        for (const [name, file] of Object.entries(target.defaultConfigs))
          configs[name] = readFileSync(join(repo, file), 'utf8');
        // What `kiln install` puts in place (systemd units and generator; the Windows confs), so that the
        // binary alone can install itself.
        const installFiles = targetInstallFiles(target);
        let addon = null;
        if (target.koffi && embedAddon) {
          const { version, file } = koffiAddonFile(target);
          addon = {
            version,
            sha256: createHash('sha256').update(readFileSync(file)).digest('hex'),
            asset: KOFFI_ASSET,
          };
        }
        const facts = {
          version: packageJson.version,
          target: { name: target.name, os: target.os, arch: target.arch, nodeVersion: target.node.version },
          defaultConfigs: configs,
          defaultCloudConfig: await defaultCloudConfig(target),
          installFiles,
          koffiAddon: addon,
        };
        return { contents: `export default ${JSON.stringify(facts)};`, loader: 'js' };
      });
    },
  };
}

/**
 * Packages that the binary carries as assets of their own rather than inside kiln's bundle, by the name the
 * bundle requires them by: the SEA loader compiles one the first time it is required. undici (HTTP) is 40% of
 * the code and only network sources and #include use it, so every other start is spared copying its source.
 */
const SEPARATE_PACKAGES = { undici: 'undici.cjs' };

/**
 * The loader compiles the bundles with vm.Script, which has no module loader for import(): esbuild turns every
 * dynamic import (of a built-in, of a separate package) into a require.
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  supported: { 'dynamic-import': false },
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  // Input paths (in the metafile the SBOM is made from) relative to the checkout wherever build.mjs is started.
  absWorkingDir: repo,
  metafile: true,
};

/** kiln's bundle for TARGET, and each separate package's, in .build/bundle/<target>/. */
async function bundle(target) {
  const dir = join(repo, '.build', 'bundle', target.name);
  const outfile = join(dir, 'kiln.cjs');
  const main = await esbuild.build({
    ...BUNDLE_OPTIONS,
    entryPoints: [join(repo, 'src', 'main.ts')],
    outfile,
    external: Object.keys(SEPARATE_PACKAGES),
    plugins: [targetPlugin(target), validatorsPlugin()],
    // For `--debug` traces that name kiln's source files (src/util/source-mapped-stack.ts); the sources themselves stay
    // out.
    sourcemap: 'external',
    sourcesContent: false,
  });
  const inputs = Object.keys(main.metafile.inputs);
  const separate = {};
  for (const [name, asset] of Object.entries(SEPARATE_PACKAGES)) {
    const file = join(dir, asset);
    const built = await esbuild.build({
      ...BUNDLE_OPTIONS,
      stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: repo },
      outfile: file,
    });
    inputs.push(...Object.keys(built.metafile.inputs));
    separate[asset] = file;
  }
  return { bundleFile: outfile, separate, inputs };
}

/**
 * V8's code cache is only valid for the exact Node build that made it, and the build makes it with a Node that
 * runs here: the target that is this host gets a code cache, the others compile at start.
 */
function canCacheCode(target) {
  const os = process.platform === 'win32' ? 'win' : process.platform;
  return target.os === os && target.arch === process.arch;
}

/**
 * The SEA's main script. The bundle itself is an asset, run through vm.Script so that it can be given a code
 * cache made after a training run (trainCodeCache): Node's own SEA code cache is made right after compiling,
 * so it holds only the top level, and every function a boot calls was compiled again at each start (about
 * 15 ms of `--version`'s 27 ms of bundle start, more in a boot). KILN_CODE_CACHE_REPORT=1 says on stderr
 * whether V8 took the cache. The asset is the bundle already wrapped as a CommonJS function (wrapForLoader), so
 * that no second copy of its 1.3 MB is made at start (~5 ms on the 2-CPU VM, where fresh pages are dear).
 */
const SEA_LOADER = `'use strict';
const sea = require('node:sea');
const { Script } = require('node:vm');
/** An asset written by wrapForLoader, compiled: a CommonJS module function. */
const compileAsset = (name, cachedData) => new Script(Buffer.from(sea.getRawAsset(name)).toString('latin1'), { filename: name, cachedData });
let cachedData;
try {
  cachedData = new Uint8Array(sea.getRawAsset('kiln.cache'));
} catch {
  cachedData = undefined; // this target was built without one
}
const script = compileAsset('kiln.cjs', cachedData);
if (process.env.KILN_CODE_CACHE_REPORT) process.stderr.write('kiln code cache: ' + (cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used') + '\\n');
// The packages the build keeps out of the bundle (SEPARATE_PACKAGES), each compiled when first required.
const separate = ${JSON.stringify(SEPARATE_PACKAGES)};
const compiled = new Map();
function bundleRequire(id) {
  const asset = separate[id];
  if (asset === undefined) return require(id);
  if (!compiled.has(id)) {
    const m = { exports: {} };
    compiled.set(id, m);
    compileAsset(asset, undefined).runInThisContext()(m.exports, bundleRequire, m, asset, __dirname);
  }
  return compiled.get(id).exports;
}
bundleRequire.main = require.main; // main.ts runs only as the entry point
script.runInThisContext()(module.exports, bundleRequire, module, __filename, __dirname);
`;

/**
 * The bundle as the loader's asset: the function Node's CommonJS loader would wrap it in, written out. The
 * loader decodes it as Latin-1 (a plain copy), which is only right for ASCII; esbuild escapes everything else
 * by default (charset ascii), and a bundle that is not ASCII fails the build here.
 */
const WRAPPER_PREFIX = '(function (exports, require, module, __filename, __dirname) { ';

function wrapForLoader(bundleFile) {
  const text = readFileSync(bundleFile);
  const at = text.findIndex((byte) => byte > 0x7f);
  if (at >= 0) throw new Error(`${bundleFile}: byte ${at} is not ASCII; the SEA loader decodes the bundle as Latin-1`);
  const wrapped = bundleFile.replace(/\.cjs$/, '.wrapped.cjs');
  writeFileSync(wrapped, `${WRAPPER_PREFIX}${text.toString('latin1')}\n});`);
  return wrapped;
}

/**
 * The bundle's source map as the binary carries it (the asset kiln.map): esbuild's map, and how many columns the
 * loader's wrapper adds to the bundle's first line.
 */
function sourceMapAsset(bundleFile) {
  const file = `${bundleFile}.map`;
  const asset = join(dirname(bundleFile), 'kiln.map.json');
  const map = JSON.parse(readFileSync(file, 'utf8'));
  // Sources as paths in the checkout (src/…, node_modules/…), the same wherever it is built: esbuild writes them
  // relative to the bundle, through node_modules' real path when that is a link to another checkout's (--check).
  const modules = realpathSync(join(repo, 'node_modules'));
  map.sources = map.sources.map((source) => {
    // A plugin's module (kiln:kiln-target) has no file.
    if (/^[a-z-]+:/.test(source)) return source;
    const path = resolve(dirname(file), source);
    if (path.startsWith(`${modules}/`)) return `node_modules/${relative(modules, path)}`;
    return path.startsWith(`${repo}/`) ? relative(repo, path) : source;
  });
  writeFileSync(asset, JSON.stringify({ firstLineOffset: WRAPPER_PREFIX.length, map }));
  return asset;
}

/**
 * Runs the bundle the way the loader does, on a dry run of every stage in an empty temporary root (no effect
 * outside it: the same run as `npm run demo` without root), then saves V8's cache of everything the run compiled.
 * The root is made to look like a first boot's, so that what a real boot runs is in the cache and not compiled at
 * start (seconds under emulation): the example NoCloud seed on a CD-ROM (an ISO made by the bundle's own
 * make-seed, with its udev database entry), one NIC with a carrier for the fallback network, and ifupdown's tools
 * so that the network config is validated and rendered.
 */
function runBundle(bundleFile, node, work, argv, extra = '') {
  const script = join(work, `run-${argv[0]}.cjs`);
  writeFileSync(
    script,
    `'use strict';
const { Script } = require('node:vm');
const { readFileSync, writeFileSync } = require('node:fs');
const script = new Script(readFileSync(${JSON.stringify(bundleFile)}, 'latin1'), { filename: 'kiln.cjs' });
process.argv = [process.argv[0], '/usr/bin/cloud-init', ...${JSON.stringify(argv)}];
${extra}
script.runInThisContext()(module.exports, require, module, __filename, __dirname);
`,
  );
  return spawnSync(node, ['--random-seed=1', script], {
    stdio: 'ignore',
    env: { ...process.env, KILN_FACE: 'cloud-init' },
    cwd: work,
  });
}

/** A first boot's root for the training run (trainCodeCache), in WORK/root. */
function trainingRoot(bundleFile, node, work) {
  const root = join(work, 'root');
  const files = {
    'sys/class/block/sr0/removable': '1\n',
    'sys/class/block/sr0/dev': '11:0\n',
    'run/udev/data/b11:0': 'E:ID_CDROM=1\nE:ID_FS_TYPE=iso9660\nE:ID_FS_LABEL=cidata\nE:ID_FS_LABEL_ENC=cidata\n',
    'sys/class/net/eth0/address': '52:54:00:12:34:56\n',
    'sys/class/net/eth0/carrier': '1\n',
    'sys/class/net/eth0/operstate': 'up\n',
    'sys/class/net/eth0/type': '1\n',
    'sys/class/net/eth0/addr_assign_type': '0\n',
    'sys/class/net/eth0/device/uevent': 'DRIVER=virtio_net\n',
    'sbin/ifup': '',
    'sbin/ifdown': '',
    'sbin/ifquery': '',
    'etc/network/interfaces': 'source /etc/network/interfaces.d/*\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const iso = join(root, 'dev/sr0');
  mkdirSync(dirname(iso), { recursive: true });
  runBundle(bundleFile, node, work, ['make-seed', '-o', iso, join(repo, 'images/examples/nocloud-seed')]);
  if (!existsSync(iso)) throw new Error('the code cache training root: make-seed wrote no seed image');
  writeFileSync(join(root, 'sys/class/block/sr0/size'), `${Math.ceil(statSync(iso).size / 512)}\n`);
  return root;
}

function trainCodeCache(bundleFile, node) {
  const work = join(dirname(bundleFile), 'training');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const root = trainingRoot(bundleFile, node, work);
  const cacheFile = join(dirname(bundleFile), 'kiln.cache');
  rmSync(cacheFile, { force: true });
  // The dry run may end in errors (an empty root has no users or sshd); only the cache matters here. V8 seeds
  // its random numbers and string hashes per process, which changes the cache's bytes from run to run; a fixed
  // --random-seed makes two builds identical, and V8 leaves that flag out of the flag hash a cache is checked
  // against, so the binary (started without it) still takes the cache.
  runBundle(
    bundleFile,
    node,
    work,
    ['--root', root, '--dry-run', '--all-stages'],
    `process.on('exit', () => writeFileSync(${JSON.stringify(cacheFile)}, script.createCachedData()));`,
  );
  if (!existsSync(cacheFile)) throw new Error('the code cache training run wrote no cache');
  rmSync(work, { recursive: true, force: true });
  return cacheFile;
}

/**
 * pkg's simple SEA mode (a bare .js entry) takes no sea-config from its command line, so its exported sea()
 * is called directly with the options kiln sets: the loader as main, the bundle and its cache as assets.
 */
const PKG_SEA = `require(${JSON.stringify(join(repo, 'node_modules/@yao-pkg/pkg/lib-es5/sea.js'))})
  .default(process.argv[1], JSON.parse(process.argv[2]))
  .catch((err) => { console.error(err); process.exit(1); });`;

function bake(target, { bundleFile, separate }, node) {
  const pkgHome = join(cacheDir, 'pkg-home');
  seedPkgCache(target, pkgHome);
  const output = join(repo, target.output);
  mkdirSync(dirname(output), { recursive: true });
  // pkg adds .exe to Windows outputs itself, so the temporary name keeps the extension last.
  const partial = output.replace(/(\.exe)?$/, '.partial$1');
  rmSync(partial, { force: true });
  const loader = join(dirname(bundleFile), 'sea-main.cjs');
  writeFileSync(loader, SEA_LOADER);
  const wrapped = wrapForLoader(bundleFile);
  const assets = { 'kiln.cjs': wrapped, 'kiln.map': sourceMapAsset(bundleFile) };
  for (const [asset, file] of Object.entries(separate)) assets[asset] = wrapForLoader(file);
  if (target.koffi) assets[KOFFI_ASSET] = koffiAddonFile(target).file;
  if (canCacheCode(target)) assets['kiln.cache'] = trainCodeCache(wrapped, node);
  // Node writes the main script's path, as sea-config gives it, into the blob. pkg would give the absolute
  // path (which differs between checkouts) and makes the blob in a new temporary folder with that folder as
  // the current directory; with TMPDIR set to a folder beside the loader, a relative main path names the
  // loader the same way from every checkout.
  const pkgTemp = join(dirname(bundleFile), 'pkg-tmp');
  rmSync(pkgTemp, { recursive: true, force: true });
  mkdirSync(pkgTemp);
  const opts = {
    targets: [{ nodeRange: `node${target.node.version}`, platform: target.os, arch: target.arch, output: partial }],
    seaConfig: { main: `../../${basename(loader)}`, useCodeCache: false, assets },
  };
  execFileSync(node, ['-e', PKG_SEA, loader, JSON.stringify(opts)], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      HOME: pkgHome,
      PATH: `${dirname(node)}:${process.env.PATH}`,
      TMPDIR: pkgTemp,
      TMP: pkgTemp,
      TEMP: pkgTemp,
    },
  });
  rmSync(pkgTemp, { recursive: true, force: true });
  renameSync(partial, output);
}

/** Thrown for a command line build.mjs cannot act on; main prints only its message. */
export class BuildUsageError extends Error {}

/**
 * build.mjs's command line: target names, `--bundle-only`, `--release` (every binary plus SHA256SUMS and an
 * SBOM each), `--check` (with --release: build again from a copy of the tree elsewhere and require identical
 * bytes) and `--node X.Y.Z` (bake every target into that Node release instead of the one targets/ names).
 */
export function parseBuildArgs(args) {
  const options = { targets: [], bundleOnly: false, release: false, check: false, node: undefined };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--bundle-only') options.bundleOnly = true;
    else if (arg === '--release') options.release = true;
    else if (arg === '--check') options.check = true;
    else if (arg === '--node' || arg.startsWith('--node=')) {
      const value = arg === '--node' ? args[++i] : arg.slice('--node='.length);
      if (value === undefined || !/^\d+\.\d+\.\d+$/.test(value)) {
        throw new BuildUsageError(
          `--node takes a Node release as X.Y.Z (for example 22.23.2), not ${value === undefined ? 'nothing' : JSON.stringify(value)}`,
        );
      }
      options.node = value;
    } else if (arg.startsWith('--'))
      throw new BuildUsageError(`unknown option ${arg}; known: --bundle-only, --release, --check, --node X.Y.Z`);
    else options.targets.push(arg);
  }
  if (options.check && !options.release)
    throw new BuildUsageError('--check compares release builds; give it with --release');
  if (options.release && options.bundleOnly)
    throw new BuildUsageError('--release makes binaries; it cannot be combined with --bundle-only');
  return options;
}

/**
 * The targets OPTIONS name (all when none), each with its Node release replaced by --node's. Only another
 * release of the same major is accepted: koffi's addon and pkg's SEA support are chosen for that major.
 */
export function selectTargets(all, options) {
  const unknown = options.targets.filter((w) => !all.some((t) => t.name === w));
  if (unknown.length)
    throw new BuildUsageError(`unknown target(s) ${unknown.join(', ')}; known: ${all.map((t) => t.name).join(', ')}`);
  const chosen = options.targets.length ? all.filter((t) => options.targets.includes(t.name)) : all;
  if (options.node === undefined) return chosen;
  return chosen.map((t) => {
    const major = t.node.version.split('.')[0];
    if (options.node.split('.')[0] !== major) {
      throw new BuildUsageError(
        `--node ${options.node}: ${t.name} is built on Node ${major}.x (targets/${t.name}.json); give a ${major}.x release`,
      );
    }
    return { ...t, node: { ...t.node, version: options.node } };
  });
}

/** SOURCE_DATE_EPOCH (reproducible-builds.org) as seconds, or undefined when it is unset or empty. */
function sourceDateEpoch() {
  const value = process.env.SOURCE_DATE_EPOCH;
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value))
    throw new BuildUsageError(`SOURCE_DATE_EPOCH must be whole seconds since 1970, not ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * dist/SHA256SUMS in sha256sum's format, the Debian package of each Linux binary (deb.mjs), the MSI of each Windows
 * binary (msi.mjs), and dist/<file>.cdx.json per binary and package. Returns the names of the files written to dist/.
 */
function writeReleaseFiles(built) {
  const dist = join(repo, 'dist');
  const esbuildVersion = JSON.parse(readFileSync(join(repo, 'node_modules/esbuild/package.json'), 'utf8')).version;
  const pkgVersion = JSON.parse(readFileSync(join(repo, 'node_modules/@yao-pkg/pkg/package.json'), 'utf8')).version;
  const sums = [];
  const released = [];
  for (const { target, inputs } of built) {
    const binary = join(repo, target.output);
    const addon = target.koffi ? koffiAddonFile(target) : undefined;
    const sbomFor = (file, moreTools) =>
      cycloneDx({
        kilnVersion: packageJson.version,
        license: packageJson.license,
        binaryFile: file,
        binaryName: basename(file),
        nodePackageDir: npmPackage(target.node.package, target.node.version),
        bundledDirs: bundledPackageDirs(inputs).map((dir) => join(repo, dir)),
        koffiAddon: addon && { packageDir: npmPackage(target.koffi.package, addon.version), file: addon.file },
        tools: [['esbuild', esbuildVersion], ['@yao-pkg/pkg', pkgVersion], ...moreTools],
        sourceDateEpoch: sourceDateEpoch(),
      });
    // The binary, and its package: a Linux binary's Debian package (deb.mjs), a Windows binary's MSI (msi.mjs, whose
    // SBOM adds wixl); each with an SBOM of the same components and a line in SHA256SUMS.
    const files = [[binary, []]];
    if (target.os === 'linux') files.push([debPackage(target, binary, targetNotices(target, inputs)), []]);
    if (target.os === 'win') {
      const msiFile = join(dist, basename(binary).replace(/\.exe$/, '.msi'));
      const texts = Object.fromEntries(Object.entries(targetInstallFiles(target)).map(([n, f]) => [n, f.text]));
      buildMsi({
        target,
        exe: binary,
        files: texts,
        version: packageJson.version,
        output: msiFile,
        epoch: sourceDateEpoch(),
      });
      files.push([msiFile, [['wixl', wixlVersion()]]]);
    }
    for (const [file, moreTools] of files) {
      const name = basename(file);
      writeFileSync(join(dist, `${name}.cdx.json`), sbomFor(file, moreTools));
      sums.push(`${createHash('sha256').update(readFileSync(file)).digest('hex')}  ${name}`);
      released.push(name, `${name}.cdx.json`);
    }
  }
  // By code point, not localeCompare: the order must not follow the build machine's locale (ICU collation weighs
  // the '_' of a package's name differently from the '-' of a binary's).
  sums.sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : a.slice(66) > b.slice(66) ? 1 : 0));
  writeFileSync(join(dist, 'SHA256SUMS'), `${sums.join('\n')}\n`);
  return [...released, 'SHA256SUMS'];
}

/**
 * The licence notices of what TARGET's binary holds (sbom.mjs bundledNotices): its Node runtime, the npm packages
 * of INPUTS (the bundle's metafile inputs) and koffi's addon.
 */
export function targetNotices(target, inputs) {
  const addon = target.koffi ? koffiAddonFile(target) : undefined;
  return bundledNotices({
    nodePackageDir: npmPackage(target.node.package, target.node.version),
    bundledDirs: bundledPackageDirs(inputs).map((dir) => join(repo, dir)),
    koffiAddon: addon && {
      packageDir: npmPackage(target.koffi.package, addon.version),
      licenseDir: join(repo, 'node_modules', 'koffi'),
    },
  });
}

/** dist/kiln_<version>_<arch>.deb of a built Linux binary (deb.mjs), with the NOTICES of what the binary holds. */
function debPackage(target, binaryFile, notices) {
  const cloudCfg = target.defaultConfigs['cloud.cfg'];
  return buildDeb({
    repo,
    target,
    binaryFile,
    installFiles: targetInstallFiles(target),
    cloudCfg: cloudCfg === undefined ? undefined : readFileSync(join(repo, cloudCfg), 'utf8'),
    license: packageJson.license,
    notices,
    version: packageJson.version,
    sourceDateEpoch: sourceDateEpoch(),
    outDir: join(repo, 'dist'),
    work: join(repo, '.build', 'deb', target.name),
  });
}

/**
 * `--release --check`: the same release built again from a copy of this tree (tracked and new files, not
 * ignored ones) in another folder, which must give byte-identical binaries and SBOMs: paths, timestamps and
 * ordering that leak into a binary show up here.
 */
function checkReproducible(released, args) {
  const copy = mkdtempSync(join(tmpdir(), 'kiln-release-check-'));
  try {
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: repo,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((f) => f !== '' && existsSync(join(repo, f)));
    for (const f of files) {
      mkdirSync(dirname(join(copy, f)), { recursive: true });
      copyFileSync(join(repo, f), join(copy, f));
    }
    symlinkSync(join(repo, 'node_modules'), join(copy, 'node_modules'));
    mkdirSync(cacheDir, { recursive: true });
    symlinkSync(cacheDir, join(copy, '.cache'));
    console.log(`\ncheck: building again in ${copy}`);
    execFileSync(process.execPath, [join(copy, 'build.mjs'), ...args.filter((a) => a !== '--check')], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const differ = released.filter(
      (f) => !readFileSync(join(repo, 'dist', f)).equals(readFileSync(join(copy, 'dist', f))),
    );
    if (differ.length)
      throw new Error(
        `not reproducible: ${differ.join(', ')} differ between ${repo} and ${copy} (the copy is kept to compare)`,
      );
    console.log('check: a second build from another folder gave identical bytes');
    rmSync(copy, { recursive: true, force: true });
  } catch (err) {
    if (!(err instanceof Error && err.message.startsWith('not reproducible')))
      rmSync(copy, { recursive: true, force: true });
    throw err;
  }
}

async function main() {
  const args = process.argv.slice(2);
  let options;
  let targets;
  try {
    options = parseBuildArgs(args);
    targets = selectTargets(loadTargets(), options);
    if (options.release) sourceDateEpoch();
  } catch (err) {
    if (!(err instanceof BuildUsageError)) throw err;
    console.error(`build.mjs: ${err.message}`);
    process.exit(2);
  }
  const node = options.bundleOnly ? null : hostNode(targets[0].node.version);
  const sizes = [];
  const built = [];
  for (const target of targets) {
    const bundled = await bundle(target);
    if (options.bundleOnly) {
      sizes.push([target.name, resolve(bundled.bundleFile), statSync(bundled.bundleFile).size]);
      continue;
    }
    bake(target, bundled, node);
    built.push({ target, inputs: bundled.inputs });
    sizes.push([target.name, target.output, statSync(join(repo, target.output)).size]);
  }
  console.log('\nbuilt:');
  for (const [name, file, size] of sizes)
    console.log(`  ${name.padEnd(12)} ${(size / 1048576).toFixed(1).padStart(6)} MB  ${file}`);
  if (options.release) {
    const released = writeReleaseFiles(built);
    console.log(
      '  dist/SHA256SUMS, kiln_<version>_<arch>.deb per Linux binary, an .msi per Windows binary, one <file>.cdx.json (CycloneDX 1.5) per binary and package',
    );
    if (options.check) checkReproducible(released, args);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`build failed: ${err.stack ?? err}`);
    process.exit(1);
  });
}
