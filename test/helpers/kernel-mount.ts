// Reads images through the Linux kernel's own filesystem drivers: loop-mounted in a private mount namespace
// when the running kernel has the driver, else inside a throw-away qemu VM that boots the cached Debian tree's kernel.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ensureBootRootfs } from './debian-rootfs';
import { hasCommand, isRoot } from './requirements';

export type KernelFs = 'iso9660' | 'vfat';

export interface KernelImage {
  /** A short name without spaces, unique in one call. */
  name: string;
  path: string;
  fs: KernelFs;
  /** Extra mount options, e.g. 'norock' to read an ISO's Joliet names. */
  options?: string;
}

export interface KernelRead {
  /** False when the kernel refused to mount the image. */
  mounted: boolean;
  /** Every regular file, './'-less path → SHA-256 of its content, as the kernel returns them. */
  files: Map<string, string>;
  /** What the kernel logged while the image was mounted and read (in a VM only: the host's log is not read). */
  kernelLog: string[];
}

// The kernel modules each filesystem needs, in load order (a VM's initramfs carries them).
const MODULES: Record<KernelFs, string[]> = {
  iso9660: ['kernel/drivers/cdrom/cdrom', 'kernel/fs/isofs/isofs'],
  vfat: ['kernel/fs/fat/fat', 'kernel/fs/fat/vfat', 'kernel/fs/nls/nls_cp437'],
};
const COMMON_MODULES = ['kernel/drivers/block/loop', 'kernel/fs/nls/nls_utf8'];

function hostHas(fs: KernelFs): boolean {
  try {
    return readFileSync('/proc/filesystems', 'utf8')
      .split('\n')
      .some((l) => l.split('\t').pop() === fs);
  } catch {
    return false;
  }
}

/**
 * The newest kernel of the cached bootable Debian tree (debian-rootfs.ts, the one test/boot/ starts), with its
 * modules beside it: no kernel package is installed on the machine that runs the tests.
 */
function distroKernel(): { vmlinuz: string; modules: string } {
  const root = ensureBootRootfs();
  const versions = readdirSync(join(root, 'boot'))
    .filter((f) => f.startsWith('vmlinuz-'))
    .map((f) => f.slice('vmlinuz-'.length))
    .filter((v) => existsSync(join(root, 'lib/modules', v)))
    .sort();
  const v = versions.pop();
  if (!v) throw new Error(`${root} holds no kernel with its modules`);
  return { vmlinuz: join(root, 'boot', `vmlinuz-${v}`), modules: join(root, 'lib/modules', v) };
}

function moduleFile(dir: string, rel: string): string | undefined {
  for (const ext of ['.ko', '.ko.xz', '.ko.zst']) if (existsSync(join(dir, rel + ext))) return join(dir, rel + ext);
  return undefined;
}

/** Why the kernel cannot be asked here, or undefined when it can (for FS). */
export function kernelMountUnavailable(fs: KernelFs): string | undefined {
  if (!isRoot()) return 'mounting an image needs root';
  if (hostHas(fs)) return hasCommand('unshare') ? undefined : `unshare (util-linux) is not installed`;
  const missing = ['qemu-system-x86_64', 'busybox', 'cpio', 'debootstrap'].filter((c) => !hasCommand(c));
  if (missing.length > 0) {
    return `the running kernel has no ${fs} driver and cannot load one, and no VM can be booted to ask another (${missing.join(', ')} missing: apt-get install qemu-system-x86 busybox-static cpio debootstrap)`;
  }
  let k: { vmlinuz: string; modules: string };
  try {
    k = distroKernel();
  } catch (err) {
    return `the running kernel has no ${fs} driver, and the bootable rootfs whose kernel a VM would start is not there: ${(err as Error).message}`;
  }
  const absent = [...MODULES[fs], ...COMMON_MODULES].filter((m) => !moduleFile(k.modules, m));
  if (absent.length > 0) return `the distro kernel ${basename(k.vmlinuz)} lacks ${absent.join(', ')}`;
  return undefined;
}

// The guest's part: load the modules, mount each image read-only on a loop device, hash every file.
const INIT = `#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t devtmpfs dev /dev
for m in $(cat /modules.list); do insmod "/modules/$m" || echo "@@INSMOD-FAILED $m"; done
dmesg -c > /dev/null
while read -r name fs opts; do
  echo "@@IMAGE $name"
  mkdir -p "/mnt/$name"
  if mount -t "$fs" -o "loop,ro$opts" "/images/$name" "/mnt/$name"; then
    echo "@@MOUNTED"
    (cd "/mnt/$name" && find . -type f | while read -r f; do echo "@@FILE $(sha256sum < "$f" | cut -d' ' -f1) $f"; done)
    umount "/mnt/$name"
  fi
  dmesg -c | sed 's/^/@@LOG /'
  echo "@@END"
done < /images.list
echo "@@DONE"
poweroff -f
`;

function parse(out: string, images: KernelImage[]): Map<string, KernelRead> {
  const result = new Map<string, KernelRead>();
  let cur: KernelRead | undefined;
  for (const line of out.split(/\r?\n/)) {
    const at = line.indexOf('@@');
    if (at < 0) continue;
    const l = line.slice(at);
    if (l.startsWith('@@IMAGE ')) {
      cur = { mounted: false, files: new Map(), kernelLog: [] };
      result.set(l.slice('@@IMAGE '.length).trim(), cur);
    } else if (l.startsWith('@@INSMOD-FAILED')) throw new Error(`the VM could not load a kernel module: ${l}`);
    else if (!cur) continue;
    else if (l === '@@MOUNTED') cur.mounted = true;
    else if (l.startsWith('@@FILE ')) {
      const rest = l.slice('@@FILE '.length);
      const sp = rest.indexOf(' ');
      cur.files.set(rest.slice(sp + 1).replace(/^\.\//, ''), rest.slice(0, sp));
    } else if (l.startsWith('@@LOG ')) {
      cur.kernelLog.push(l.slice('@@LOG '.length));
    } else if (l === '@@END') cur = undefined;
  }
  if (!out.includes('@@DONE')) throw new Error(`the VM did not finish reading the images:\n${out.slice(-3000)}`);
  for (const i of images) if (!result.has(i.name)) throw new Error(`the VM did not report image ${i.name}`);
  return result;
}

function viaHost(images: KernelImage[], work: string): Map<string, KernelRead> {
  const script = join(work, 'read.sh');
  writeFileSync(
    script,
    `${images
      .map(
        (i) =>
          `echo "@@IMAGE ${i.name}"; mkdir -p "${work}/mnt/${i.name}"; ` +
          `if mount -t ${i.fs} -o loop,ro${i.options ? `,${i.options}` : ''} "${i.path}" "${work}/mnt/${i.name}"; then echo @@MOUNTED; ` +
          `(cd "${work}/mnt/${i.name}" && find . -type f | while read -r f; do echo "@@FILE $(sha256sum < "$f" | cut -d' ' -f1) $f"; done); umount "${work}/mnt/${i.name}"; fi; echo @@END`,
      )
      .join('\n')}\necho @@DONE\n`,
  );
  // A private mount namespace: the host's mount table never sees these mounts.
  const r = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', script], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return parse(r.stdout + r.stderr, images);
}

function viaVm(images: KernelImage[], work: string): Map<string, KernelRead> {
  const k = distroKernel();
  const root = join(work, 'initramfs');
  for (const d of ['bin', 'proc', 'dev', 'mnt', 'modules', 'images']) mkdirSync(join(root, d), { recursive: true });
  copyFileSync(
    spawnSync('sh', ['-c', 'command -v busybox'], { encoding: 'utf8' }).stdout.trim(),
    join(root, 'bin', 'busybox'),
  );
  chmodSync(join(root, 'bin', 'busybox'), 0o755);
  const fss = [...new Set(images.map((i) => i.fs))];
  const loaded: string[] = [];
  for (const m of [...COMMON_MODULES, ...fss.flatMap((f) => MODULES[f])]) {
    const src = moduleFile(k.modules, m) as string;
    const name = `${basename(m)}.ko`;
    if (src.endsWith('.ko')) copyFileSync(src, join(root, 'modules', name));
    else {
      const un = spawnSync(src.endsWith('.xz') ? 'xz' : 'zstd', ['-dc', src], { maxBuffer: 64 << 20 });
      if (un.status !== 0) throw new Error(`cannot decompress ${src}`);
      writeFileSync(join(root, 'modules', name), un.stdout);
    }
    loaded.push(name);
  }
  writeFileSync(join(root, 'modules.list'), `${loaded.join('\n')}\n`);
  for (const i of images) copyFileSync(i.path, join(root, 'images', i.name));
  writeFileSync(
    join(root, 'images.list'),
    `${images.map((i) => `${i.name} ${i.fs} ${i.options ? `,${i.options}` : ''}`).join('\n')}\n`,
  );
  writeFileSync(join(root, 'init'), INIT);
  chmodSync(join(root, 'init'), 0o755);
  const initrd = join(work, 'initrd.cpio');
  const cpio = spawnSync('sh', ['-c', `cd "${root}" && find . | cpio -o -H newc --quiet > "${initrd}"`], {
    encoding: 'utf8',
  });
  if (cpio.status !== 0) throw new Error(`cpio failed: ${cpio.stderr}`);
  // Plain emulation (TCG), about 20 s: under a nested hypervisor KVM guests were seen to hang before the
  // kernel printed a line, and a test must not depend on what the host's hypervisor passes through.
  const r = spawnSync(
    'qemu-system-x86_64',
    [
      '-accel',
      'tcg',
      '-m',
      '512',
      '-nographic',
      '-no-reboot',
      // No network device: the guest reaches nothing.
      '-nic',
      'none',
      '-kernel',
      k.vmlinuz,
      '-initrd',
      initrd,
      '-append',
      'console=ttyS0 panic=-1 quiet loglevel=3 rdinit=/init',
    ],
    { encoding: 'utf8', timeout: 600_000, maxBuffer: 64 << 20 },
  );
  return parse(`${r.stdout ?? ''}${r.stderr ?? ''}`, images);
}

/** Mounts each image read-only with the kernel's driver and hashes every file it shows. */
export function readWithKernel(images: KernelImage[], work: string): Map<string, KernelRead> {
  const fss = [...new Set(images.map((i) => i.fs))];
  return fss.every(hostHas) ? viaHost(images, work) : viaVm(images, work);
}
