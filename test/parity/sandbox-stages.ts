// Seeds a rootfs copy with NoCloud files and runs the four cloud-init stages in it, each under unshare + chroot.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LaterBoot, ParityCase } from './seeds';

export const SEED_DIR_IN_ROOT = '/var/lib/cloud/seed/nocloud';

/** The four stages as cloud-init's systemd units run them. */
export const STAGES: Array<{ name: string; args: string[] }> = [
  { name: 'init-local', args: ['init', '--local'] },
  { name: 'init', args: ['init'] },
  { name: 'modules:config', args: ['modules', '--mode', 'config'] },
  { name: 'modules:final', args: ['modules', '--mode', 'final'] },
];

export interface StageRun {
  stage: string;
  code: number;
  wallMs: number;
  /** Peak resident set of the stage's process tree, KiB (GNU time's %M). */
  maxRssKb: number;
  stderr: string;
  /** What the stage printed on stdout (kiln's banner and ci-info tables; cloud-init writes them to stderr). */
  stdout?: string;
}

/** Writes the seed and the config that forces NoCloud into ROOT (the first boot). */
export function seedRoot(root: string, c: ParityCase): void {
  const seed = join(root, SEED_DIR_IN_ROOT);
  mkdirSync(seed, { recursive: true });
  copyFileSync(c.files.metaData, join(seed, 'meta-data'));
  writeFileSync(join(seed, 'user-data'), c.files.userData ? readFileSync(c.files.userData) : '');
  if (c.files.vendorData) copyFileSync(c.files.vendorData, join(seed, 'vendor-data'));
  if (c.files.networkConfig) copyFileSync(c.files.networkConfig, join(seed, 'network-config'));
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90-kiln-parity.cfg'), 'datasource_list: [NoCloud]\n');
}

/** Turns ROOT into the next boot: /run is a tmpfs (emptied), and the seed may carry a new instance id or user data. */
export function prepareLaterBoot(root: string, c: ParityCase, boot: LaterBoot): void {
  rmSync(join(root, 'run/cloud-init'), { recursive: true, force: true });
  const seed = join(root, SEED_DIR_IN_ROOT);
  if (boot.instanceId) {
    const md = readFileSync(join(seed, 'meta-data'), 'utf8').replace(
      /^instance-id:.*$/m,
      `instance-id: ${boot.instanceId}`,
    );
    writeFileSync(join(seed, 'meta-data'), md);
  }
  if (boot.userData) copyFileSync(join(c.dir, boot.userData), join(seed, 'user-data'));
}

/**
 * The machine under test is a VM, but each stage runs in a PID namespace of its own, and trixie's systemd-detect-virt
 * (257) calls any PID namespace but the first a container ("container-other"); cloud-init 25.1 (util.is_container)
 * then reads no DMI at all (dmi.read_dmi_data), so a source that goes by DMI (Ec2's AWS, VMware) finds nothing.
 * In ROOT the container question gets a VM's answer ("none", exit 1), for both sides; every other question goes to
 * the real program.
 */
export function notAContainer(root: string): void {
  const program = join(root, 'usr/bin/systemd-detect-virt');
  if (!existsSync(program)) return;
  renameSync(program, `${program}.real`);
  writeFileSync(
    program,
    '#!/bin/sh\nfor a in "$@"; do case "$a" in -c|--container) echo none; exit 1;; esac; done\nexec /usr/bin/systemd-detect-virt.real "$@"\n',
    { mode: 0o755 },
  );
}

/**
 * For the network parity cases: the named network namespace the stage runs in (instead of an empty one of its own)
 * and the folder of fake DMI files it sees as /sys/class/dmi/id.
 */
export interface NetSandbox {
  netns: string;
  dmiDir: string;
  /**
   * Gives this interface (a veth) a `device` folder in the stage's /sys/class/net, as a cloud VM's NIC has: the
   * sources that pick "a physical NIC" (cloud-init's DigitalOcean link-local helper) skip a veth otherwise.
   */
  physicalNic?: string;
  /** A file bind-mounted over the stage's /proc/cmdline: the kernel command line both sides read (a boot's own). */
  cmdlineFile?: string;
}

function shQuote(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

/**
 * Replaces the bound /sys/class/net with a tmpfs of links to the namespace's interfaces, NIC (quoted) a folder of
 * links to its attributes plus an empty `device` folder: sysfs itself cannot grow one, and a veth has none.
 */
function physicalNicScript(r: string, nic: string): string[] {
  return [
    `umount ${r}/sys/class/net`,
    `mount -t tmpfs -o mode=0755 sysclassnet ${r}/sys/class/net`,
    `for d in $(ls /sys/class/net); do [ "$d" = ${nic} ] || ln -s "$(readlink -f /sys/class/net/$d)" ${r}/sys/class/net/$d; done`,
    `real=$(readlink -f /sys/class/net/${nic}); mkdir ${r}/sys/class/net/${nic} ${r}/sys/class/net/${nic}/device`,
    `for e in $(ls $real); do ln -s "$real/$e" ${r}/sys/class/net/${nic}/$e; done`,
  ];
}

/**
 * The namespaces and mounts of one stage: without NET, new UTS, IPC, mount, PID and network namespaces, chrooted,
 * /proc mounted inside. With NET, the stage joins NET's namespace (ip netns exec) and also sees a sysfs of that
 * namespace (its interfaces) with the fake DMI folder bind-mounted as /sys/class/dmi/id; /sys/class becomes a
 * tmpfs holding binds of the real classes first, since a sysfs folder cannot be created where the host has no DMI.
 * The root is bind-mounted onto itself so that it is a mount point: cloud-init reads the mount options of its
 * temporary folder from /proc/1/mountinfo (get_tmp_exec_path), which lists no "/" in a plain chroot.
 */
function stageCommand(root: string, args: string[], net?: NetSandbox, program = '/usr/bin/cloud-init'): string[] {
  const cloudInit = `${program} ${args.join(' ')}`;
  if (!net)
    return [
      'unshare',
      '--uts',
      '--ipc',
      '--mount',
      '--pid',
      '--net',
      '--fork',
      '--kill-child',
      'chroot',
      root,
      '/bin/sh',
      '-c',
      `mount -t proc proc /proc && exec ${cloudInit}`,
    ];
  const r = shQuote(root);
  const script = [
    'set -e',
    `mount --bind ${r} ${r}`,
    `mount -t proc proc ${r}/proc`,
    ...(net.cmdlineFile ? [`mount --bind ${shQuote(net.cmdlineFile)} ${r}/proc/cmdline`] : []),
    `mount -t sysfs sysfs ${r}/sys`,
    `mount -t tmpfs -o mode=0755 sysclass ${r}/sys/class`,
    `for c in $(ls /sys/class); do mkdir ${r}/sys/class/$c; mount --bind /sys/class/$c ${r}/sys/class/$c; done`,
    ...(net.physicalNic ? physicalNicScript(r, shQuote(net.physicalNic)) : []),
    `mkdir -p ${r}/sys/class/dmi/id`,
    `mount --bind ${shQuote(net.dmiDir)} ${r}/sys/class/dmi/id`,
    `exec chroot ${r} ${cloudInit}`,
  ].join('\n');
  return [
    'ip',
    'netns',
    'exec',
    net.netns,
    'unshare',
    '--uts',
    '--ipc',
    '--mount',
    '--pid',
    '--fork',
    '--kill-child',
    '/bin/sh',
    '-c',
    script,
  ];
}

/**
 * Runs one stage of /usr/bin/cloud-init (whichever program that is in ROOT) in new namespaces, chrooted (see
 * stageCommand); /proc is mounted inside those namespaces only.
 */
export function runStage(
  root: string,
  stage: { name: string; args: string[] },
  timeoutMs = 300_000,
  env: Record<string, string> = {},
  net?: NetSandbox,
): StageRun {
  const timeFile = join(root, '..', `.time-${process.pid}-${Date.now()}`);
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', '-o', timeFile, ...stageCommand(root, stage.args, net)], {
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  let wallMs = NaN;
  let maxRssKb = NaN;
  try {
    const line = readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '';
    const [secs, rss] = line.split(' ');
    wallMs = Number(secs) * 1000;
    maxRssKb = Number(rss);
  } catch {
    /* the time file is missing when the command could not start; code says why */
  }
  rmSync(timeFile, { force: true });
  return {
    stage: stage.name,
    code: r.status ?? -1,
    wallMs,
    maxRssKb,
    stderr: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}`,
    stdout: r.stdout ?? '',
  };
}

/**
 * What Debian's networking.service does between init-local and init at boot, `ifup -a` (ifupdown's), in the sandbox a
 * stage of NET runs in: the interfaces init-local's rendered config marks `auto` come up (dhclient leases on DHCP
 * ones).
 */
export function runDistroNetworking(root: string, net: NetSandbox, timeoutMs = 120_000): StageRun {
  const t0 = Date.now();
  const [cmd, ...args] = stageCommand(root, ['-a'], net, '/sbin/ifup');
  const r = spawnSync(cmd as string, args, {
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
  });
  return {
    stage: 'networking (ifup -a)',
    code: r.status ?? -1,
    wallMs: Date.now() - t0,
    maxRssKb: NaN,
    stderr: `${r.stderr ?? ''}${r.error ? String(r.error) : ''}`,
  };
}

/**
 * All four stages in order (a failing stage does not stop the next, as systemd runs each unit regardless),
 * with ENV added to each stage's environment.
 */
export function runAllStages(root: string, env: Record<string, string> = {}, net?: NetSandbox): StageRun[] {
  return STAGES.map((s) => runStage(root, s, undefined, env, net));
}

/** Puts the built kiln binary in ROOT as /usr/bin/cloud-init (replacing Debian's Python entry point). */
export function installKiln(root: string, binary: string): void {
  const dest = join(root, 'usr/bin/cloud-init');
  rmSync(dest, { force: true });
  copyFileSync(binary, dest);
  spawnSync('chmod', ['0755', dest]);
}
