// Builds kiln's Debian package for one Linux target with dpkg-deb (build.mjs --release): the binary at
// /usr/bin/kiln with its cloud-init names, the units, generator and hook-hotplug the binary embeds (the same
// files, from the same targets/ entries, laid out where `kiln install` puts them on a system without Debian's
// cloud-init), /etc/cloud/cloud.cfg as a conffile, and the control data and maintainer scripts of images/deb/.
// Reproducible: fixed owners (root), modes and mtimes (SOURCE_DATE_EPOCH), members in name order.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  lstatSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

/** Debian's names for the targets' architectures. */
export const DEBIAN_ARCH = { x64: 'amd64', arm64: 'arm64' };

/** Where `kiln install` puts each file without Debian's cloud-init (src/install/linux-install.ts: VENDOR_LAYOUT). */
export const DEB_LAYOUT = {
  binary: 'usr/bin/kiln',
  names: ['usr/bin/cloud-init', 'usr/bin/cloud-id'],
  units: 'usr/lib/systemd/system',
  generators: 'usr/lib/systemd/system-generators',
  hookHotplug: 'usr/lib/cloud-init',
  cloudCfg: 'etc/cloud/cloud.cfg',
};

const GENERATOR = 'cloud-init-generator';
const HOOK_HOTPLUG = 'hook-hotplug';
const SCRIPTS = ['preinst', 'postinst', 'prerm', 'postrm'];

/** The package's file name, Debian's convention: kiln_<version>_<arch>.deb. */
export function debFileName(version, target) {
  return `kiln_${version}_${debianArch(target)}.deb`;
}

function debianArch(target) {
  const arch = DEBIAN_ARCH[target.arch];
  if (target.os !== 'linux' || arch === undefined)
    throw new Error(`${target.name}: no Debian package for ${target.os}-${target.arch}`);
  return arch;
}

/** The cloud-init release kiln reproduces, as src/build-info.ts names it (the version the package provides). */
export function cloudInitVersion(repo) {
  const file = join(repo, 'src', 'build-info.ts');
  const found = /export const KILN_CLOUD_INIT_VERSION = '([^']+)'/.exec(readFileSync(file, 'utf8'));
  if (!found)
    throw new Error(`${file}: KILN_CLOUD_INIT_VERSION not found; the package cannot say which cloud-init it provides`);
  return found[1];
}

/** Where the package's copyright file and the bundled components' licence texts go (Debian policy 12.5). */
const DOC_DIR = 'usr/share/doc/kiln';

/** A licence text's file name under DOC_DIR/third-party: the component's name and version, '/' made '+'. */
function noticeFileName(notice) {
  return `${notice.name.replace('/', '+')}-${notice.version}.LICENSE`;
}

/**
 * /usr/share/doc/kiln/copyright in Debian's machine-readable format: kiln's own licence (LICENSE, Apache-2.0, in
 * Debian's common-licenses), and each component usr/bin/kiln holds, with its licence and where its text is.
 */
export function debianCopyright(license, notices) {
  const components = notices.map((n) => ` ${n.name} ${n.version} (${n.license}): third-party/${noticeFileName(n)}`);
  return [
    'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
    'Upstream-Name: kiln',
    "Comment: usr/bin/kiln is one executable: kiln's own code, the Node.js runtime it is built on and the npm",
    ' packages bundled into it. Each component, its licence and the file of this folder that holds its licence text:',
    ...components,
    '',
    'Files: *',
    'Copyright: the kiln authors',
    `License: ${license}`,
    '',
    `License: ${license}`,
    ...(license === 'Apache-2.0'
      ? [
          ' On Debian systems, the complete text of the Apache License, Version 2.0 is in',
          ' /usr/share/common-licenses/Apache-2.0.',
        ]
      : [` The complete text is in the kiln source tree's LICENSE file.`]),
    '',
  ].join('\n');
}

/** Every file and link under DIR, relative, sorted. */
function walk(dir, prefix = '') {
  const out = [];
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    const rel = prefix ? `${prefix}/${name}` : name;
    const st = lstatSync(join(dir, rel));
    if (st.isDirectory()) out.push(rel, ...walk(dir, rel));
    else out.push(rel);
  }
  return out;
}

/**
 * Writes the package of TARGET to OUT_DIR and returns its path. INSTALL_FILES are build.mjs's installFiles of the
 * target (name → { text, mode }); CLOUD_CFG the text of its default cloud.cfg; WORK a scratch folder.
 */
export function buildDeb({
  repo,
  target,
  binaryFile,
  installFiles,
  cloudCfg,
  license,
  notices,
  version,
  sourceDateEpoch,
  outDir,
  work,
}) {
  const arch = debianArch(target);
  const epoch = sourceDateEpoch ?? 0;
  rmSync(work, { recursive: true, force: true });
  const root = join(work, 'root');
  const put = (rel, data, mode) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), data);
    chmodSync(join(root, rel), mode);
  };
  mkdirSync(join(root, dirname(DEB_LAYOUT.binary)), { recursive: true });
  copyFileSync(binaryFile, join(root, DEB_LAYOUT.binary));
  chmodSync(join(root, DEB_LAYOUT.binary), 0o755);
  for (const name of DEB_LAYOUT.names) symlinkSync('kiln', join(root, name));
  for (const [name, { text, mode }] of Object.entries(installFiles)) {
    const dir =
      name === GENERATOR ? DEB_LAYOUT.generators : name === HOOK_HOTPLUG ? DEB_LAYOUT.hookHotplug : DEB_LAYOUT.units;
    put(`${dir}/${name}`, text, mode);
  }
  if (cloudCfg === undefined)
    throw new Error(`${target.name}: no default cloud.cfg in targets/${target.name}.json; the package ships one`);
  put(DEB_LAYOUT.cloudCfg, cloudCfg, 0o644);
  put(`${DOC_DIR}/copyright`, debianCopyright(license, notices), 0o644);
  for (const notice of notices)
    put(`${DOC_DIR}/third-party/${noticeFileName(notice)}`, readFileSync(notice.file), 0o644);

  const files = walk(root);
  const md5sums = files
    .filter((f) => lstatSync(join(root, f)).isFile())
    .map(
      (f) =>
        `${createHash('md5')
          .update(readFileSync(join(root, f)))
          .digest('hex')}  ${f}\n`,
    )
    .join('');
  // dpkg's Installed-Size as dpkg-gencontrol counts it: KiB, each file rounded up, 1 for a folder or a link.
  const installedSize = files.reduce(
    (kib, f) => kib + (lstatSync(join(root, f)).isFile() ? Math.ceil(statSync(join(root, f)).size / 1024) : 1),
    0,
  );
  const data = join(repo, 'images', 'deb');
  const control = readFileSync(join(data, 'control'), 'utf8')
    .replaceAll('@VERSION@', version)
    .replaceAll('@ARCHITECTURE@', arch)
    .replaceAll('@INSTALLED_SIZE@', String(installedSize))
    .replaceAll('@CLOUD_INIT_VERSION@', cloudInitVersion(repo));
  if (/@[A-Z_]+@/.test(control))
    throw new Error(`images/deb/control: ${/@[A-Z_]+@/.exec(control)[0]} is not filled in by deb.mjs`);
  put('DEBIAN/control', control, 0o644);
  put('DEBIAN/conffiles', readFileSync(join(data, 'conffiles')), 0o644);
  put('DEBIAN/md5sums', md5sums, 0o644);
  put('DEBIAN/triggers', readFileSync(join(data, 'triggers')), 0o644);
  // The /lib names of what the package ships under /usr/lib: one file each on a merged-/usr system (preinst).
  const aliased = files
    .filter((f) => f.startsWith('usr/lib/') && lstatSync(join(root, f)).isFile())
    .map((f) => `/${f.slice('usr/'.length)}`);
  for (const script of SCRIPTS)
    put(
      `DEBIAN/${script}`,
      readFileSync(join(data, script), 'utf8').replaceAll('@ALIASED_PATHS@', aliased.join(' ')),
      0o755,
    );

  // Folders 0755 and every mtime the release's, whatever the umask and clock of this build.
  for (const f of ['', ...walk(root)]) {
    const path = join(root, f);
    const st = lstatSync(path);
    if (st.isDirectory()) chmodSync(path, 0o755);
    if (!st.isSymbolicLink()) utimesSync(path, epoch, epoch);
  }
  for (const name of DEB_LAYOUT.names) execFileSync('touch', ['-h', '-d', `@${epoch}`, join(root, name)]);

  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, debFileName(version, target));
  // dpkg-deb sorts the members itself and takes the ar and tar times from SOURCE_DATE_EPOCH.
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', '--build', root, out], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch) },
  });
  rmSync(work, { recursive: true, force: true });
  return out;
}
