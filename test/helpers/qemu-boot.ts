// Boots a disk image under qemu for the real-boot tests: the image made from a rootfs without loop mounts, the
// serial console captured line by line with the seconds since qemu started, and hard timeouts that kill qemu and
// fail with the console's tail, so that a stalled guest can never hang the suite.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/** One line of the serial console and when it arrived, in seconds since qemu was started. */
export interface ConsoleLine {
  at: number;
  text: string;
}

export interface BootImage {
  disk: string;
  kernel: string;
  initrd: string;
}

/** The guest architectures bootQemu boots (Debian's names): amd64 on q35, arm64 on `virt` with UEFI, both TCG here. */
export type BootArch = 'amd64' | 'arm64';

/** The serial console's device in a guest of ARCH: the 16550 of q35, the PL011 of arm's virt machine. */
export function consoleDevice(arch: BootArch): string {
  return arch === 'arm64' ? 'ttyAMA0' : 'ttyS0';
}

/** Debian's qemu-efi-aarch64 firmware (edk2's ArmVirtQemu): its code, and the variable store each boot copies. */
export const AAVMF_CODE = '/usr/share/AAVMF/AAVMF_CODE.fd';
export const AAVMF_VARS = '/usr/share/AAVMF/AAVMF_VARS.fd';

export class BootFailure extends Error {}

function run(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new BootFailure(`${cmd}: ${r.error.message}`);
  if (r.status !== 0)
    throw new BootFailure(`${cmd} ${args.join(' ')} failed (${r.status}): ${(r.stderr || r.stdout).slice(-2000)}`);
  return r.stdout;
}

/** The newest file of /boot named PREFIX-<version>, copied out of ROOT to INTO; a clear error when there is none. */
function bootFile(root: string, prefix: string, into: string, arch: BootArch): string {
  const names = readdirSync(join(root, 'boot'))
    .filter((n) => n.startsWith(`${prefix}-`))
    .sort();
  const name = names.at(-1);
  if (name === undefined)
    throw new BootFailure(
      `no ${prefix}-* in ${root}/boot: is linux-image-${arch} (and initramfs-tools) installed in the rootfs?`,
    );
  copyFileSync(join(root, 'boot', name), into);
  return into;
}

/**
 * Makes a bootable raw disk of ROOT (which the caller has prepared: kiln installed, files added): an MBR with one
 * Linux partition from 1 MiB, filled by `mkfs.ext4 -d` (no loop mount, no root needed for the image itself),
 * labelled `root` for the fstab line this writes. The kernel and initramfs are copied out for a direct boot.
 */
export function makeBootImage(root: string, into: string, sizeMiB = 2048, arch: BootArch = 'amd64'): BootImage {
  writeFileSync(join(root, 'etc/fstab'), 'LABEL=root / ext4 defaults,errors=remount-ro 0 1\n');
  const kernel = bootFile(root, 'vmlinuz', join(into, 'vmlinuz'), arch);
  const initrd = bootFile(root, 'initrd.img', join(into, 'initrd.img'), arch);
  const disk = join(into, 'disk.raw');
  run('truncate', ['-s', `${sizeMiB}M`, disk]);
  run('sfdisk', ['-q', disk], 'label: dos\nstart=2048, type=83, bootable\n');
  const blocks = ((sizeMiB - 1) * 1024 * 1024) / 4096;
  run('mkfs.ext4', ['-q', '-F', '-b', '4096', '-L', 'root', '-E', 'offset=1048576', '-d', root, disk, String(blocks)]);
  return { disk, kernel, initrd };
}

/**
 * Adds to ROOT a unit of the image (not of kiln) named NAME that runs SCRIPT once the boot reaches multi-user.target
 * and the units in AFTER: the probe a boot test or bench reports through on the serial console, and powers off with.
 */
export function installProbeUnit(root: string, name: string, script: string, after: readonly string[] = []): void {
  mkdirSync(join(root, 'usr/local/sbin'), { recursive: true });
  writeFileSync(join(root, 'usr/local/sbin', name), script, { mode: 0o755 });
  const unit = [
    '[Unit]',
    `Description=${name} (probe of a qemu boot)`,
    `After=${['multi-user.target', ...after].join(' ')}`,
    '[Service]',
    'Type=simple',
    `ExecStart=/usr/local/sbin/${name}`,
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ];
  writeFileSync(join(root, 'etc/systemd/system', `${name}.service`), unit.join('\n'));
  const wants = join(root, 'etc/systemd/system/multi-user.target.wants');
  mkdirSync(wants, { recursive: true });
  rmSync(join(wants, `${name}.service`), { force: true });
  symlinkSync(`../${name}.service`, join(wants, `${name}.service`));
}

/**
 * No login prompt on the serial console TTY of the image in ROOT: trixie's agetty writes terminal queries there
 * (`ESC[6n` and the like), onto the lines a probe prints.
 */
export function maskSerialGetty(root: string, tty = 'ttyS0'): void {
  symlinkSync('/dev/null', join(root, `etc/systemd/system/serial-getty@${tty}.service`));
}

/**
 * KVM when it can run KERNEL, TCG otherwise. /dev/kvm existing is not enough: a nested host (Firecracker) may
 * open it and then hang the guest's early boot. So KERNEL is started under KVM with no root and panic=-1: a
 * working KVM reaches the panic and qemu (-no-reboot) exits within seconds; otherwise it is killed and TCG used.
 * KILN_BOOT_ACCEL=tcg|kvm forces one.
 */
export function accelerator(kernel: string): 'kvm' | 'tcg' {
  const forced = process.env.KILN_BOOT_ACCEL;
  if (forced === 'tcg' || forced === 'kvm') return forced;
  if (!existsSync('/dev/kvm')) return 'tcg';
  if (kvmWorks !== undefined) return kvmWorks ? 'kvm' : 'tcg';
  const r = spawnSync(
    'qemu-system-x86_64',
    [
      '-machine',
      'q35,accel=kvm',
      '-cpu',
      'host',
      '-m',
      '256',
      '-nodefaults',
      '-display',
      'none',
      '-no-reboot',
      '-monitor',
      'none',
      '-serial',
      'stdio',
      '-kernel',
      kernel,
      '-append',
      'console=ttyS0 panic=-1',
    ],
    { timeout: 15_000, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  kvmWorks = r.status === 0 && /Kernel panic/.test(r.stdout);
  return kvmWorks ? 'kvm' : 'tcg';
}

/** Whether KVM ran a kernel: the check costs seconds (a hung one the whole 15 s), so it is made once per process. */
let kvmWorks: boolean | undefined;

export interface BootOptions {
  image: BootImage;
  /** A NoCloud (or other) seed image attached as a CD-ROM. */
  seed?: string;
  /** The whole boot's limit: qemu is killed and the boot fails with the console tail when it is reached. */
  timeoutMs: number;
  /**
   * Count timeoutMs from the first console line matching this instead of from qemu's start (a test of the time limit
   * itself, whose console must hold lines however slowly a loaded machine starts qemu); until then the limit is
   * ten minutes.
   */
  timeoutFrom?: RegExp;
  /** A file the timestamped console is appended to as it arrives (kept for a look after a failure). */
  logFile?: string;
  accel?: 'kvm' | 'tcg';
  memoryMiB?: number;
  cpus?: number;
  /** Extra kernel command line. */
  append?: string;
  /** The qemu program (default qemu-system-x86_64, or qemu-system-aarch64 for arm64, from PATH). */
  qemu?: string;
  /**
   * The guest's architecture (default amd64). arm64 boots `-machine virt -cpu max` under TCG with Debian's AAVMF
   * UEFI firmware, which starts the kernel and initrd qemu hands it over fw_cfg (its EFI stub; no boot loader in
   * the image), the console on ttyAMA0 and the seed on virtio-scsi (virt has no IDE).
   */
  arch?: BootArch;
  /** `-smbios` values, e.g. 'type=1,serial=ds=nocloud;s=http://10.0.2.100/' (NoCloud's seed URL in the DMI serial). */
  smbios?: string[];
  /**
   * guestfwd rules of the user-mode NIC, e.g. 'tcp:10.0.2.100:80-tcp:127.0.0.1:8000': the guest reaches a server on the
   * host's loopback at that address, and nothing else (the NIC stays restrict=on).
   */
  guestForwards?: string[];
}

export interface BootResult {
  lines: ConsoleLine[];
  /** Seconds from qemu's start to its exit (the guest powered off). */
  seconds: number;
}

/** One line of a console log as bootQemu writes it (the arrival second, a space, the line). */
const LOG_LINE = /^\s*(\d+\.\d+) (.*)$/;

/** The console lines a boot's logFile holds, to read a kept boot again. */
export function readConsoleLog(text: string): ConsoleLine[] {
  const lines: ConsoleLine[] = [];
  for (const raw of text.split('\n')) {
    const m = LOG_LINE.exec(raw);
    if (m) lines.push({ at: Number(m[1]), text: m[2] ?? '' });
  }
  return lines;
}

/** The last N console lines, for failure messages. */
export function consoleTail(lines: readonly ConsoleLine[], n = 40): string {
  return lines
    .slice(-n)
    .map((l) => `${l.at.toFixed(1).padStart(7)} ${l.text}`)
    .join('\n');
}

/**
 * arm's virt machine with UEFI: the firmware's code read-only and a copy of its variable store beside DISK (each
 * image its own, as a real machine's NVRAM), both as pflash. A clear error when qemu-efi-aarch64 is missing.
 */
function firmwareArguments(disk: string): string[] {
  if (!existsSync(AAVMF_CODE))
    throw new BootFailure(`${AAVMF_CODE} is missing: install qemu-efi-aarch64 to boot an arm64 guest`);
  const vars = `${disk}.efivars`;
  if (!existsSync(vars)) copyFileSync(AAVMF_VARS, vars);
  return [
    '-machine',
    'virt,accel=tcg',
    '-cpu',
    'max',
    '-drive',
    `if=pflash,format=raw,unit=0,readonly=on,file=${AAVMF_CODE}`,
    '-drive',
    `if=pflash,format=raw,unit=1,file=${vars}`,
  ];
}

/**
 * Boots OPTIONS.image with qemu (q35, `-cpu max` under TCG; arm64: OPTIONS.arch), the serial console on qemu's stdout,
 * a user-mode NIC restricted to the guest (restrict=on: no traffic leaves the host), -no-reboot so a guest poweroff or
 * reboot ends qemu. Resolves when qemu exits after a poweroff; rejects with the console tail on the time limit or when
 * qemu cannot start.
 */
export function bootQemu(options: BootOptions): Promise<BootResult> {
  const arch = options.arch ?? 'amd64';
  const accel = arch === 'arm64' ? 'tcg' : (options.accel ?? accelerator(options.image.kernel));
  const qemu = options.qemu ?? (arch === 'arm64' ? 'qemu-system-aarch64' : 'qemu-system-x86_64');
  const machine =
    arch === 'arm64'
      ? firmwareArguments(options.image.disk)
      : ['-machine', `q35,accel=${accel}`, '-cpu', accel === 'kvm' ? 'host' : 'max'];
  const seed = !options.seed
    ? []
    : arch === 'arm64'
      ? [
          '-device',
          'virtio-scsi-pci,id=scsi0',
          '-drive',
          `file=${options.seed},if=none,id=seed,media=cdrom,readonly=on`,
          '-device',
          'scsi-cd,drive=seed,bus=scsi0.0',
        ]
      : ['-drive', `file=${options.seed},media=cdrom,readonly=on`];
  const args = [
    ...machine,
    '-m',
    String(options.memoryMiB ?? 1024),
    '-smp',
    String(options.cpus ?? 2),
    '-nodefaults',
    '-display',
    'none',
    '-no-reboot',
    '-monitor',
    'none',
    '-kernel',
    options.image.kernel,
    '-initrd',
    options.image.initrd,
    '-append',
    `root=/dev/vda1 ro console=${consoleDevice(arch)},115200 printk.time=1 ${options.append ?? ''}`.trim(),
    '-drive',
    `file=${options.image.disk},if=virtio,format=raw,cache=unsafe`,
    ...seed,
    '-serial',
    'stdio',
    '-nic',
    ['user,model=virtio-net-pci,restrict=on', ...(options.guestForwards ?? []).map((g) => `guestfwd=${g}`)].join(','),
    ...(options.smbios ?? []).flatMap((v) => ['-smbios', v]),
    '-object',
    'rng-random,id=rng0,filename=/dev/urandom',
    '-device',
    'virtio-rng-pci,rng=rng0',
  ];
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  const lines: ConsoleLine[] = [];
  return new Promise((resolve, reject) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(qemu, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      reject(new BootFailure(`${qemu} could not be started: ${(err as Error).message}`));
      return;
    }
    let settled = false;
    let partial = '';
    let stderr = '';
    const finish = (outcome: { ok: BootResult } | { error: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      if ('ok' in outcome) resolve(outcome.ok);
      else
        reject(
          new BootFailure(`${outcome.error}\n--- console tail (seconds since qemu start) ---\n${consoleTail(lines)}`),
        );
    };
    const limit = (ms: number, what: string) =>
      setTimeout(
        () => finish({ error: `the boot did not finish within ${ms / 1000} s${what} (${accel}); qemu killed` }),
        ms,
      );
    let timer = options.timeoutFrom
      ? limit(600_000, ` before a console line matched ${options.timeoutFrom}`)
      : limit(options.timeoutMs, '');
    let armed = options.timeoutFrom === undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      const at = seconds();
      for (const raw of parts) {
        const line = { at, text: raw.replace(/\r/g, '') };
        lines.push(line);
        if (!armed && options.timeoutFrom?.test(line.text)) {
          armed = true;
          clearTimeout(timer);
          timer = limit(options.timeoutMs, ` of its first line matching ${options.timeoutFrom}`);
        }
        if (options.logFile) appendFileSync(options.logFile, `${at.toFixed(3).padStart(8)} ${line.text}\n`);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (err) => finish({ error: `${qemu} could not be started: ${err.message}` }));
    child.on('close', (code, signal) => {
      if (partial) lines.push({ at: seconds(), text: partial.replace(/\r/g, '') });
      // qemu exits 0 when killed by SIGTERM too, saying so on stderr: that is no guest poweroff.
      if (code === 0 && !/terminating on signal/.test(stderr)) finish({ ok: { lines, seconds: seconds() } });
      else finish({ error: `qemu exited with ${code ?? signal}: ${stderr.trim().slice(-1500)}` });
    });
  });
}
