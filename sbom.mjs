// Writes the CycloneDX 1.5 SBOM of one built binary (build.mjs --release): the Node runtime it is baked into,
// every npm package esbuild bundled into it (from the metafile's inputs) and koffi's addon for its target.
// Plain JSON built by hand from CycloneDX's schema, so that a release needs no SBOM tool as a dependency.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The package folder (relative, `node_modules/a` or `node_modules/@s/a`, nested ones kept whole) of every
 * metafile input that lies under node_modules, sorted, so that the SBOM lists each bundled package once.
 */
export function bundledPackageDirs(inputPaths) {
  const dirs = new Set();
  for (const input of inputPaths) {
    const path = input.replaceAll('\\', '/');
    const at = path.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const rest = path.slice(at + 'node_modules/'.length).split('/');
    const nameParts = rest[0].startsWith('@') ? 2 : 1;
    if (rest.length <= nameParts) continue;
    dirs.add(path.slice(0, at + 'node_modules/'.length) + rest.slice(0, nameParts).join('/'));
  }
  return [...dirs].sort();
}

/** CycloneDX's licence choice for a package.json `license`: an SPDX id, an expression, or nothing. */
function licenses(license) {
  if (typeof license !== 'string' || license === '') return undefined;
  return /^[A-Za-z0-9.+-]+$/.test(license) ? [{ license: { id: license } }] : [{ expression: license }];
}

function purl(name, version) {
  return `pkg:npm/${name.startsWith('@') ? `%40${name.slice(1)}` : name}@${version}`;
}

/** One npm package as a CycloneDX component, from its package.json. */
function npmComponent(packageDir, type, extra = {}) {
  const pj = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const ref = purl(pj.name, pj.version);
  return {
    type,
    'bom-ref': ref,
    name: pj.name,
    version: pj.version,
    licenses: licenses(pj.license),
    purl: ref,
    ...extra,
  };
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/**
 * The SBOM as a JSON string. `serialNumber` is a UUID (version 8, "custom") made from the SHA-256 of the rest
 * of the document, so the same inputs always give the same bytes; a timestamp is only written when
 * SOURCE_DATE_EPOCH gives one (reproducible-builds.org's convention).
 */
export function cycloneDx({
  kilnVersion,
  license,
  binaryFile,
  binaryName,
  nodePackageDir,
  bundledDirs,
  koffiAddon,
  tools,
  sourceDateEpoch,
}) {
  const binary = readFileSync(binaryFile);
  const node = npmComponent(nodePackageDir, 'platform', { description: 'Node.js runtime the binary is built on' });
  const all = [node, ...bundledDirs.map((dir) => npmComponent(dir, 'library'))];
  if (koffiAddon !== undefined) {
    all.push(
      npmComponent(koffiAddon.packageDir, 'library', {
        description: "koffi's native addon, carried as an asset of the binary",
        hashes: [{ alg: 'SHA-256', content: sha256(readFileSync(koffiAddon.file)) }],
      }),
    );
  }
  // One package installed at two places in node_modules is one component (bom-refs must be unique).
  const components = [...new Map(all.map((c) => [c['bom-ref'], c])).values()];
  const metadata = {
    ...(sourceDateEpoch !== undefined
      ? { timestamp: new Date(sourceDateEpoch * 1000).toISOString().replace('.000Z', 'Z') }
      : {}),
    tools: { components: tools.map(([name, version]) => ({ type: 'application', name, version })) },
    component: {
      type: 'application',
      'bom-ref': `kiln@${kilnVersion}`,
      name: 'kiln',
      version: kilnVersion,
      licenses: licenses(license),
      hashes: [{ alg: 'SHA-256', content: sha256(binary) }],
      properties: [{ name: 'kiln:binary', value: binaryName }],
    },
  };
  const body = {
    version: 1,
    metadata,
    components,
    dependencies: [{ ref: `kiln@${kilnVersion}`, dependsOn: components.map((c) => c['bom-ref']) }],
  };
  const digest = sha256(JSON.stringify(body));
  const uuid = [
    digest.slice(0, 8),
    digest.slice(8, 12),
    `8${digest.slice(13, 16)}`,
    ((parseInt(digest.slice(16, 17), 16) & 0x3) | 0x8).toString(16) + digest.slice(17, 20),
    digest.slice(20, 32),
  ].join('-');
  const bom = { bomFormat: 'CycloneDX', specVersion: '1.5', serialNumber: `urn:uuid:${uuid}`, ...body };
  return `${JSON.stringify(bom, null, 2)}\n`;
}

/** The names a package's licence text goes by, in the order looked for. */
const LICENSE_FILES = ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'LICENCE', 'license', 'license.md'];

/**
 * What a package of the binary must carry for the code the binary holds: each bundled component (the Node runtime,
 * the npm packages, koffi's addon) with its licence and the text its package ships (koffi's addon: LICENSE_DIR's). A
 * component without a licence text is an error: its terms cannot be passed on.
 */
export function bundledNotices({ nodePackageDir, bundledDirs, koffiAddon }) {
  // koffi's per-target addon packages carry no licence text of their own: koffi's package (the same project) does.
  const dirs = [
    [nodePackageDir],
    ...bundledDirs.map((d) => [d]),
    ...(koffiAddon ? [[koffiAddon.packageDir, koffiAddon.licenseDir]] : []),
  ];
  const byName = new Map();
  for (const [dir, licenseDir] of dirs) {
    const pj = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const file = [dir, ...(licenseDir ? [licenseDir] : [])]
      .flatMap((d) => LICENSE_FILES.map((f) => join(d, f)))
      .find((f) => existsSync(f));
    if (file === undefined)
      throw new Error(`${dir}: no licence text (${LICENSE_FILES.join(', ')}) for ${pj.name}@${pj.version}`);
    byName.set(`${pj.name}@${pj.version}`, {
      name: pj.name,
      version: pj.version,
      license: typeof pj.license === 'string' ? pj.license : 'see its licence text',
      file,
    });
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
