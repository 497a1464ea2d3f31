// debootstrap'd Debian rootfs trees (bookworm with cloud-init 22.4, trixie with 25.1), built once and cached outside
// the repo: one with Debian's cloud-init (the oracle for parity tests, and the sandbox for end-to-end runs of the built
// binary), one with a kernel and no cloud-init (the image the qemu boot tests install kiln into; also for arm64, its
// second stage run through qemu-user-static, test/helpers/foreign-chroot.ts), and that bootable tree plus Debian's
// cloud-init (the other side of the boot timeline bench).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWithForeignBinfmt, type DebianArch, type ForeignArch } from './foreign-chroot';
import { privateCopy, type CopyOptions } from './overlay-copy';

export const ROOTFS_CACHE = process.env.KILN_ROOTFS_CACHE ?? '/var/cache/kiln-test';

/**
 * Packages beyond minbase: the real cloud-init and what its modules and sources call in a chroot (wget: 22.4's
 * CloudStack source asks the password server with it; python3-serial: the SmartOS and CloudSigma sources open the
 * serial port with pyserial, which Debian 12's cloud-init depends on and Debian 13's no longer does). debootstrap does
 * not resolve virtual packages, so python3-cffi-backend (which provides python3-cffi-backend-api-*, needed by
 * python3-cryptography) is named explicitly.
 */
export const ROOTFS_PACKAGES = [
  'cloud-init',
  'python3-cffi-backend',
  'openssh-server',
  'sudo',
  'passwd',
  'adduser',
  'locales',
  'tzdata',
  'netplan.io',
  'ifupdown',
  'ca-certificates',
  'python3-jinja2',
  'python3-yaml',
  'iproute2',
  'isc-dhcp-client',
  'e2fsprogs',
  'cloud-guest-utils',
  'wget',
  'python3-serial',
];

/**
 * Packages beyond minbase for the bootable tree: a kernel and its initramfs, systemd as init, and what the modules
 * a boot test asserts on call. Debian's cloud-init is left out on purpose: kiln is installed in its place.
 */
export const BOOT_ROOTFS_PACKAGES = [
  'linux-image-amd64',
  'initramfs-tools',
  'locales',
  'openssh-server',
  'sudo',
  'passwd',
  'adduser',
  'iproute2',
  'ifupdown',
  'systemd',
  'systemd-sysv',
  'udev',
  'isc-dhcp-client',
  'tzdata',
  'e2fsprogs',
  'cloud-guest-utils',
  // The stage units' nc (cloud-init 25.1's units; Debian 13's cloud-init and kiln's package depend on it).
  'netcat-openbsd',
];

/**
 * The Debian releases the tests build trees of: bookworm (cloud-init 22.4, the first oracle) and trixie
 * (cloud-init 25.1, the reference: docs/compatibility.md). Both come from the same archive.
 */
export type DebianSuite = 'bookworm' | 'trixie';

const DEFAULT_SUITE: DebianSuite = 'bookworm';

/**
 * The Debian mirror this machine's apt uses (deb822 or one-line format), so no host is named here. The machine's
 * own release names it; the other release is served from the same archive.
 */
export function aptMirror(): string {
  const files = [
    '/etc/apt/sources.list',
    ...listDir('/etc/apt/sources.list.d')
      .filter((f) => /\.(list|sources)$/.test(f))
      .map((f) => join('/etc/apt/sources.list.d', f)),
  ];
  for (const file of files) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const block of text.split(/\n\s*\n/)) {
      const uri = /^URIs:\s*(\S+)/m.exec(block)?.[1];
      const suites = /^Suites:\s*(.+)$/m.exec(block)?.[1] ?? '';
      if (uri && suites.split(/\s+/).some(isDebianRelease) && !uri.includes('security')) return uri;
    }
    for (const line of text.split('\n')) {
      const m = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line.trim());
      if (m && isDebianRelease(m[2] as string) && !m[1]?.includes('security')) return m[1] as string;
    }
  }
  throw new Error('no apt source for Debian bookworm or trixie found in /etc/apt; cannot debootstrap');
}

function isDebianRelease(suite: string): boolean {
  return suite === 'bookworm' || suite === 'trixie';
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function stamp(suite: DebianSuite, packages: readonly string[]): string {
  return `${suite} ${packages.join(',')}\n`;
}

/**
 * Returns the path of the cached rootfs, building it first when missing or stale (several minutes, once).
 * A lock folder makes concurrent test files wait for one build.
 */
export function ensureDebianRootfs(suite: DebianSuite = DEFAULT_SUITE): string {
  return ensureCachedRootfs(`${suite}-cloud-init`, stamp(suite, ROOTFS_PACKAGES), (building) =>
    debootstrap(building, suite, ROOTFS_PACKAGES),
  );
}

/** The bootable tree's packages for ARCH: the same list, with that architecture's kernel. */
export function bootRootfsPackages(arch: DebianArch): string[] {
  return BOOT_ROOTFS_PACKAGES.map((p) => (p === 'linux-image-amd64' ? `linux-image-${arch}` : p));
}

/**
 * The cached bootable tree (kernel, initramfs, systemd, no cloud-init) for the qemu boot tests, of ARCH: amd64's is
 * `SUITE-boot`, another's `SUITE-ARCH-boot`, debootstrapped in two stages (the second through qemu-user-static).
 */
export function ensureBootRootfs(suite: DebianSuite = DEFAULT_SUITE, arch: DebianArch = 'amd64'): string {
  if (arch === 'amd64')
    return ensureCachedRootfs(`${suite}-boot`, stamp(suite, BOOT_ROOTFS_PACKAGES), (building) =>
      debootstrap(building, suite, BOOT_ROOTFS_PACKAGES),
    );
  const packages = bootRootfsPackages(arch);
  return ensureCachedRootfs(`${suite}-${arch}-boot`, `${arch} ${stamp(suite, packages)}`, (building) =>
    foreignDebootstrap(building, suite, arch, packages),
  );
}

/**
 * What is added to the bootable tree for the cloud-init side of the boot bench (recommends left out, as debootstrap
 * does).
 */
export const BOOT_CLOUD_INIT_PACKAGES = ['cloud-init'];

/**
 * The cached bootable tree with Debian's cloud-init package installed by apt from Debian's registry: the same
 * kernel, systemd and packages as the tree kiln is installed into, so a boot of each differs only in which
 * cloud-init runs. Rebuilt when the bootable tree's package list changes.
 */
export function ensureBootCloudInitRootfs(suite: DebianSuite = DEFAULT_SUITE): string {
  const want = `${stamp(suite, BOOT_ROOTFS_PACKAGES).trim()} + apt-get install ${BOOT_CLOUD_INIT_PACKAGES.join(',')}\n`;
  return ensureCachedRootfs(`${suite}-boot-cloud-init`, want, (building) => {
    const base = ensureBootRootfs(suite);
    mkdirSync(building);
    const copy = spawnSync('cp', ['-a', '--reflink=auto', `${base}/.`, building], { encoding: 'utf8' });
    if (copy.status !== 0) throw new Error(`copying ${base} failed: ${copy.stderr}`);
    // A private mount and pid namespace for /proc; the network stays the host's, which apt needs to reach the
    // mirror debootstrap wrote into the tree's sources.list. policy-rc.d (exit 101) keeps services from starting.
    const script = [
      'mount -t proc proc /proc',
      'export DEBIAN_FRONTEND=noninteractive',
      'apt-get -q update',
      `apt-get -q install -y --no-install-recommends ${BOOT_CLOUD_INIT_PACKAGES.join(' ')}`,
      'apt-get clean',
      'rm -rf /var/lib/apt/lists/*',
    ].join(' && ');
    const r = spawnSync(
      'unshare',
      ['--mount', '--pid', '--fork', '--kill-child', 'chroot', building, '/bin/sh', '-c', script],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        timeout: 20 * 60_000,
      },
    );
    if (r.status !== 0)
      throw new Error(
        `installing ${BOOT_CLOUD_INIT_PACKAGES.join(' ')} into a copy of ${base} failed (${r.status ?? r.error?.message}): ${(r.stderr || r.stdout).slice(-2000)}`,
      );
  });
}

function debootstrap(building: string, suite: DebianSuite, packages: readonly string[]): void {
  const r = spawnSync(
    'debootstrap',
    ['--variant=minbase', `--include=${packages.join(',')}`, suite, building, aptMirror()],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (r.status !== 0) throw new Error(`debootstrap failed (${r.status}): ${(r.stderr || r.stdout).slice(-2000)}`);
}

/**
 * debootstrap for another architecture: the first stage on the host (download and unpack, device nodes made as
 * root), the second (the packages' maintainer scripts, arm64 programs) chrooted in a namespace with qemu-user-static
 * as its binfmt handler. container=lxc makes debootstrap skip its mknod check of the target, which a user namespace
 * refuses; the nodes the first stage made are used as they are.
 */
function foreignDebootstrap(
  building: string,
  suite: DebianSuite,
  arch: ForeignArch,
  packages: readonly string[],
): void {
  const first = spawnSync(
    'debootstrap',
    [
      '--foreign',
      `--arch=${arch}`,
      '--variant=minbase',
      `--include=${packages.join(',')}`,
      suite,
      building,
      aptMirror(),
    ],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (first.status !== 0)
    throw new Error(
      `debootstrap --foreign --arch=${arch} failed (${first.status}): ${(first.stderr || first.stdout).slice(-2000)}`,
    );
  runWithForeignBinfmt(
    arch,
    `mount -t proc proc '${building}/proc'\ncontainer=lxc chroot '${building}' /debootstrap/debootstrap --second-stage`,
  );
}

/**
 * The cached tree NAME, made by BUILD into a scratch folder when it is missing or its stamp is not WANT, then
 * renamed into place; a lock folder makes concurrent users wait for one build.
 */
function ensureCachedRootfs(name: string, want: string, build: (building: string) => void): string {
  const dir = join(ROOTFS_CACHE, name);
  const ok = join(dir, '.kiln-rootfs-ok');
  const ready = (): boolean => existsSync(ok) && readFileSync(ok, 'utf8') === want;
  if (ready()) return dir;
  mkdirSync(ROOTFS_CACHE, { recursive: true });
  const lock = join(ROOTFS_CACHE, `${name}.lock`);
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (ready()) return dir;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for another build of ${dir} (remove ${lock} if stale)`);
      spawnSync('sleep', ['2']);
    }
  }
  try {
    if (ready()) return dir;
    const building = `${dir}.building`;
    rmSync(building, { recursive: true, force: true });
    build(building);
    // Nothing in the rootfs may start services or reach out when tests chroot into it.
    writeFileSync(join(building, 'usr/sbin/policy-rc.d'), '#!/bin/sh\nexit 101\n', { mode: 0o755 });
    rmSync(join(building, 'var/cache/apt/archives'), { recursive: true, force: true });
    mkdirSync(join(building, 'var/cache/apt/archives/partial'), { recursive: true });
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
    writeFileSync(ok, want);
    return dir;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * A private copy of the cached rootfs for one test (an overlay on the cache, or cp -a: test/helpers/overlay-copy.ts),
 * removed by the caller with tempDir's cleanup or removeTree.
 */
export function copyRootfs(
  into: string,
  { suite = DEFAULT_SUITE, ...options }: CopyOptions & { suite?: DebianSuite } = {},
): string {
  return privateCopy(ensureDebianRootfs(suite), into, options);
}

/**
 * A private copy of the cached bootable rootfs of ARCH (or, with cloudInit, of the amd64 one with Debian's cloud-init),
 * removed as copyRootfs's.
 */
export function copyBootRootfs(
  into: string,
  {
    cloudInit = false,
    suite = DEFAULT_SUITE,
    arch = 'amd64',
  }: { cloudInit?: boolean; suite?: DebianSuite; arch?: DebianArch } = {},
): string {
  return privateCopy(cloudInit ? ensureBootCloudInitRootfs(suite) : ensureBootRootfs(suite, arch), into);
}
