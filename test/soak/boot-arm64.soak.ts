// `npm run soak -- boot-arm64`: kiln-linux-arm64 on a real arm64 kernel. The arm64 .deb is installed with dpkg into
// a Debian bookworm arm64 tree (debootstrap --arch arm64, its second stage through qemu-user-static:
// test/helpers/foreign-chroot.ts), booted under qemu-system-aarch64 -machine virt -cpu max (TCG) with Debian's AAVMF
// UEFI firmware, the seed made by `kiln make-seed` on a virtio-scsi CD-ROM; the same seed, probe and checks as the
// amd64 first-boot test (test/helpers/first-boot-probe.ts). Every stage runs, `status --wait` exits 0, runcmd and the
// per-instance script ran (programs started by kiln's posix_spawn through koffi on the arm64 kernel), the host keys
// sshd serves are the ones kiln made. Too slow for `npm test` here (minutes of TCG); run before every release
// (README). Needs root, dist/kiln-linux-arm64 and dist/kiln-linux-x64 (`npm run build`), qemu-system-aarch64,
// qemu-efi-aarch64, qemu-user-static and debootstrap. Prints the measured times; exit 1 when a check failed.
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { copyBootRootfs, ensureBootRootfs } from '../helpers/debian-rootfs';
import { buildDebForTest } from '../helpers/deb-package';
import {
  assertFirstBootOfSeed,
  firstBootProbe,
  firstBootUserData,
  META_DATA,
  one,
  tagged,
} from '../helpers/first-boot-probe';
import { runWithForeignBinfmt } from '../helpers/foreign-chroot';
import { removeTree } from '../helpers/overlay-copy';
import {
  bootQemu,
  consoleDevice,
  consoleTail,
  installProbeUnit,
  makeBootImage,
  maskSerialGetty,
} from '../helpers/qemu-boot';
import { builtBinary } from '../helpers/repo';
import { hasCommand } from '../helpers/requirements';

/** The boot's hard limit: a TCG arm64 boot takes minutes on a shared machine; a stall must still end the run. */
const BOOT_TIMEOUT_MS = Number(process.env.KILN_BOOT_TIMEOUT_MS ?? 30 * 60_000);

const arm64 = builtBinary('kiln-linux-arm64');
const host = builtBinary('kiln-linux-x64');
const tools = ['qemu-system-aarch64', 'debootstrap', 'mkfs.ext4', 'sfdisk', 'unshare'];
if (!arm64 || !host || process.getuid?.() !== 0 || tools.some((t) => !hasCommand(t))) {
  console.error(
    `boot-arm64 soak: needs root, dist/kiln-linux-arm64 and dist/kiln-linux-x64 (npm run build), ${tools.join(', ')} (and qemu-efi-aarch64, qemu-user-static)`,
  );
  process.exit(2);
}

function sh(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${r.status ?? r.error?.message}): ${(r.stderr || r.stdout).slice(-2000)}`,
    );
}

const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);
const work = mkdtempSync('/var/tmp/kiln-boot-arm64-');
const tty = consoleDevice('arm64');
try {
  let started = Date.now();
  ensureBootRootfs('bookworm', 'arm64');
  console.log(
    `arm64 bootable tree (/var/cache/kiln-test/bookworm-arm64-boot, built when missing): ${seconds(started)} s`,
  );

  started = Date.now();
  const root = join(work, 'rootfs');
  copyBootRootfs(root, { arch: 'arm64' });
  const deb = buildDebForTest({
    target: 'linux-arm64',
    binaryFile: arm64,
    outDir: join(work, 'deb'),
    work: join(work, 'deb-work'),
  });
  copyFileSync(deb, join(root, 'tmp/kiln.deb'));
  // dpkg and the maintainer scripts are arm64 programs: they run through qemu-user-static in the namespace.
  runWithForeignBinfmt(
    'arm64',
    `mount -t proc proc '${root}/proc'\nchroot '${root}' /bin/sh -c 'dpkg -i /tmp/kiln.deb && rm /tmp/kiln.deb'`,
  );
  installProbeUnit(root, 'kiln-boot-probe', firstBootProbe(tty));
  maskSerialGetty(root, tty);
  const image = makeBootImage(root, work, 2048, 'arm64');
  removeTree(root);
  const seedDir = join(work, 'seed');
  mkdirSync(seedDir);
  writeFileSync(join(seedDir, 'user-data'), firstBootUserData(tty));
  writeFileSync(join(seedDir, 'meta-data'), META_DATA);
  const seed = join(work, 'seed.iso');
  sh(host, ['make-seed', '-o', seed, seedDir]);
  console.log(`image with kiln from ${deb.replace(/^.*\//, '')}: ${seconds(started)} s`);

  const log = join(work, 'boot.log');
  const boot = await bootQemu({
    image,
    seed,
    arch: 'arm64',
    append: 'systemd.show_status=false',
    timeoutMs: BOOT_TIMEOUT_MS,
    logFile: log,
  });
  if (tagged(boot.lines, 'PROBE-END').length === 0)
    throw new Error(`the guest powered off before the probe finished\n${consoleTail(boot.lines)}`);
  const firstKernelLine = boot.lines.find((l) => /\[ *\d+\.\d{6}\] /.test(l.text))?.at;
  const done = boot.lines.find((l) => /PROBE-STATUS\|.*status: done$/.test(l.text))?.at;
  assertFirstBootOfSeed(boot);
  const arch = one(boot, 'PROBE-ARCH');
  if (arch !== 'aarch64 arm64') throw new Error(`the guest is not arm64: uname -m and dpkg say ${arch}`);
  console.log(
    `boot (qemu-system-aarch64 -machine virt -cpu max, TCG, AAVMF UEFI): first kernel line at ${firstKernelLine?.toFixed(1)} s, 'status: done' at ${done?.toFixed(1)} s, powered off at ${boot.seconds.toFixed(1)} s`,
  );
  console.log(
    `ok: every stage ran, status --wait exited 0, runcmd and the per-instance script ran, hostname ${one(boot, 'PROBE-HOSTNAME')}, sshd serves kiln's host keys (${arch})`,
  );
} catch (err) {
  console.error(`boot-arm64 soak failed: ${(err as Error).message}`);
  console.error(
    `(work folder ${work}${process.env.KILN_BOOT_KEEP === '1' ? ' kept' : ' removed; KILN_BOOT_KEEP=1 keeps it'})`,
  );
  process.exitCode = 1;
} finally {
  if (process.env.KILN_BOOT_KEEP !== '1') removeTree(work);
}
