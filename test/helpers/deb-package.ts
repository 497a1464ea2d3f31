// kiln's Debian package built for a test by deb.mjs, as build.mjs --release builds it (same install files, same
// default cloud.cfg, same control data), from a given binary into a folder of the test's own.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './repo';

export interface DebBuild {
  /** targets/ name: linux-x64 or linux-arm64. */
  target: string;
  /** The file that becomes /usr/bin/kiln. */
  binaryFile: string;
  outDir: string;
  /** deb.mjs's scratch folder. */
  work: string;
  sourceDateEpoch?: number;
  /** The umask the build runs under (a release must not depend on it). */
  umask?: number;
}

/** Builds the package and returns its path; throws with dpkg-deb's or deb.mjs's message when it fails. */
export function buildDebForTest(b: DebBuild): string {
  const script = `process.umask(${b.umask ?? 0o022});
const { loadTargets, targetInstallFiles, targetNotices } = await import(${JSON.stringify(join(REPO, 'build.mjs'))});
const { buildDeb } = await import(${JSON.stringify(join(REPO, 'deb.mjs'))});
const { readFileSync } = await import('node:fs');
const repo = ${JSON.stringify(REPO)};
const target = loadTargets().find((t) => t.name === ${JSON.stringify(b.target)});
const pj = JSON.parse(readFileSync(repo + '/package.json', 'utf8'));
process.stdout.write(buildDeb({
  repo, target, binaryFile: ${JSON.stringify(b.binaryFile)}, installFiles: targetInstallFiles(target),
  cloudCfg: readFileSync(repo + '/' + target.defaultConfigs['cloud.cfg'], 'utf8'), version: pj.version, license: pj.license,
  // The runtime dependencies stand for the bundle's inputs (a test has no metafile): each is bundled.
  notices: targetNotices(target, Object.keys(pj.dependencies).map((d) => 'node_modules/' + d + '/package.json')),
  sourceDateEpoch: ${b.sourceDateEpoch === undefined ? 'undefined' : String(b.sourceDateEpoch)},
  outDir: ${JSON.stringify(b.outDir)}, work: ${JSON.stringify(b.work)},
}));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`building the .deb of ${b.target} failed: ${r.stderr}`);
  return r.stdout;
}

/** `dpkg-deb -f`'s fields of DEB, by name. */
export function debFields(deb: string): Record<string, string> {
  const r = spawnSync('dpkg-deb', ['-f', deb], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`dpkg-deb -f ${deb}: ${r.stderr}`);
  const out: Record<string, string> = {};
  let last = '';
  for (const line of r.stdout.split('\n')) {
    const m = /^([A-Za-z-]+):\s?(.*)$/.exec(line);
    if (m) out[(last = m[1] as string)] = m[2] as string;
    else if (line.startsWith(' ') && last) out[last] += `\n${line}`;
  }
  return out;
}

/** `dpkg-deb -c`'s members of DEB as "path type mode owner [-> target]", folders left out, sorted. */
export function debMembers(deb: string): string[] {
  const r = spawnSync('dpkg-deb', ['-c', deb], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`dpkg-deb -c ${deb}: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l && !l.startsWith('d'))
    .map((l) => {
      const [perm, owner, , , , ...rest] = l.split(/\s+/);
      return `${rest.join(' ').replace(/^\.\//, '')} ${perm} ${owner}`;
    })
    .sort();
}

/**
 * netcat-openbsd's amd64 package (kiln's Depends: the stage units' nc), for a bookworm rootfs that lacks it: the
 * host's copy in apt's archive cache when there is one (the host runs the same release), else `apt-get download`
 * into DIR. Installed beside kiln's package with dpkg -i, so no test rootfs needs rebuilding with it.
 */
export function netcatOpenbsdDeb(dir: string): string {
  const cache = '/var/cache/apt/archives';
  const cached = existsSync(cache)
    ? readdirSync(cache)
        .filter((f) => /^netcat-openbsd_.*_amd64\.deb$/.test(f))
        .sort()
        .pop()
    : undefined;
  if (cached) return join(cache, cached);
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('apt-get', ['download', 'netcat-openbsd:amd64'], { cwd: dir, encoding: 'utf8' });
  const got = readdirSync(dir).find((f) => /^netcat-openbsd_.*\.deb$/.test(f));
  if (r.status !== 0 || !got)
    throw new Error(`apt-get download netcat-openbsd failed (${r.status ?? r.error?.message}): ${r.stderr}`);
  return join(dir, got);
}
