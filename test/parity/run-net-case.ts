// Runs one network parity case on one side: a rootfs copy whose stages run in the case's network lab with fake DMI.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyRootfs } from '../helpers/debian-rootfs';
import type { NetCase } from './net-cases';
import { openNetLab } from './net-lab';
import { AFTER_INIT_LOCAL, INIT_LOCAL_FILES, snapshotView } from './net-view';
import { checkExpectations, PARITY_SUITE, sideName, type Side } from './run-case';
import { installKiln, notAContainer, runDistroNetworking, runStage, STAGES, type StageRun } from './sandbox-stages';
import type { Tree } from './tree-snapshot';
import { activationView, unmetActivation } from './net-activation-view';
import { removeTree } from '../helpers/overlay-copy';

export interface NetSideResult {
  root: string;
  stages: StageRun[];
  /** The compared view: entries after init-local (paths ending in @init-local) and after the last stage. */
  view: Tree;
  unmet: string[];
  /** The metadata service's own output (its request log when it prints one). */
  server: string;
}

/**
 * What the harness itself sets in 90-kiln-parity.cfg, on both sides alike:
 * - the case's datasource_list (and its cloud.cfg snippet);
 * - disable_network_activation: the sandbox has no networking service that brought eth0 up before the init stage,
 *   so cloud-init's `ifup eth0` there would really start dhclient (and wait on DHCPv6 for minutes); kiln never
 *   activates interfaces, it leaves that to the OS. Activation is not what these cases compare.
 */
function parityConfig(c: NetCase): string {
  return `datasource_list: [${c.datasourceList.join(', ')}]\n${c.activation ? '' : 'disable_network_activation: true\n'}${c.config}`;
}

export async function runNetCaseOnSide(c: NetCase, side: Side, work: string, kiln: string): Promise<NetSideResult> {
  const name = sideName(side);
  const root = join(work, name);
  removeTree(root);
  mkdirSync(root, { recursive: true });
  copyRootfs(root, { suite: PARITY_SUITE });
  if (side !== 'cloud-init') installKiln(root, side.kilnBinary);
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90-kiln-parity.cfg'), parityConfig(c));
  if (c.seed) cpSync(c.seed, join(root, 'var/lib/cloud/seed/nocloud-net'), { recursive: true });
  // The rootfs keeps the build host's resolver, unreachable from the lab: every lookup (cloud-init resolves
  // made-up names first to detect DNS redirection) would wait 30 s. A resolver on the machine's own loopback
  // with nothing listening fails at once, as a cloud without DNS does.
  rmSync(join(root, 'etc/resolv.conf'), { force: true });
  writeFileSync(join(root, 'etc/resolv.conf'), 'nameserver 127.0.0.1\n');
  notAContainer(root);
  // The case's own files (a provisioning seed, an /etc/hosts line), the same on both sides.
  if (c.rootfs) cpSync(c.rootfs, root, { recursive: true, preserveTimestamps: true });
  const dmiDir = join(work, `${name}-dmi`);
  mkdirSync(dmiDir, { recursive: true });
  for (const [field, value] of Object.entries(c.dmi)) writeFileSync(join(dmiDir, field), `${value}\n`);
  const cmdlineFile = c.kernelCmdline !== undefined ? join(work, `${name}-cmdline`) : undefined;
  if (cmdlineFile) writeFileSync(cmdlineFile, `${c.kernelCmdline}\n`);

  const lab = await openNetLab(c, kiln, join(work, `${name}-lab`));
  try {
    if (!c.ipv6) disableIpv6(lab.machine, 'eth0');
    const net = {
      netns: lab.machine,
      dmiDir,
      ...(c.physicalNic ? { physicalNic: 'eth0' } : {}),
      ...(cmdlineFile ? { cmdlineFile } : {}),
    };
    const [local, ...later] = STAGES;
    // A fixed hash seed makes cloud-init's set orders (authorized keys) the same on every run.
    const env: Record<string, string> = side === 'cloud-init' ? { PYTHONHASHSEED: '2' } : {};
    const stages = [runStage(root, local as (typeof STAGES)[number], 120_000, env, net)];
    const view = snapshotView(root, INIT_LOCAL_FILES, AFTER_INIT_LOCAL);
    // At boot the distro's networking starts after init-local and brings up what it rendered.
    if (c.activation) {
      stages.push(runDistroNetworking(root, net));
      await addressesSettled(lab.machine);
    }
    const dhclient = c.networkUp === 'dhclient' ? await bringUpEth0(root, lab.machine) : undefined;
    try {
      for (const s of later) stages.push(runStage(root, s, 120_000, env, net));
    } finally {
      dhclient?.kill('SIGKILL');
    }
    for (const [path, entry] of snapshotView(root)) view.set(path, entry);
    if (c.activation) {
      const init = stages.find((s) => s.stage === 'init');
      for (const [path, entry] of activationView(
        root,
        `${init?.stdout ?? ''}${init?.stderr ?? ''}`,
        machineAddresses(lab.machine),
      ))
        view.set(path, entry);
    }
    const unmet = [
      ...checkExpectations(root, c.expect),
      ...(c.activation ? unmetActivation(view, c.expectAddresses) : []),
      ...unmetRequests(lab.requests(), c.expectRequests),
    ];
    return { root, stages, view, unmet, server: lab.serverOutput() };
  } finally {
    lab.close();
  }
}

/** The case's expected requests that no logged request matches (every field given equal), described. */
export function unmetRequests(
  logged: Array<Record<string, unknown>>,
  expected: Array<Record<string, string | number>>,
): string[] {
  return expected
    .filter((want) => !logged.some((r) => Object.entries(want).every(([k, v]) => r[k] === v)))
    .map((want) => `no request matching ${JSON.stringify(want)} reached the mock (it logged ${logged.length})`);
}

/** Turns IPv6 off on NIC in the machine's namespace (see NetCase.ipv6). */
function disableIpv6(netns: string, nic: string): void {
  const r = spawnSync(
    'ip',
    ['netns', 'exec', netns, 'sh', '-c', `echo 1 > /proc/sys/net/ipv6/conf/${nic}/disable_ipv6`],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`could not turn IPv6 off on ${nic} in ${netns}: ${r.stderr}`);
}

/** `ip -o addr` of the machine's namespace, as the stages left it. */
function machineAddresses(netns: string): string {
  const r = spawnSync('ip', ['-n', netns, '-o', 'addr', 'show'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout : `ip -o addr show failed (${r.status}): ${r.stderr}`;
}

/**
 * Waits (at most 10 s) until no IPv6 address of the machine is still tentative: at boot the network stage starts
 * long after duplicate address detection ends, and the kernel's local routes for an address appear only then, so
 * the ci-info route tables of the two sides would otherwise differ by how fast each started.
 */
async function addressesSettled(netns: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const r = spawnSync('ip', ['-n', netns, '-6', 'addr', 'show', 'tentative'], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim() === '') return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const LEASES = 'var/lib/dhcp/dhclient.eth0.leases';

/**
 * What a real boot's networking service does between init-local and init: the rootfs's own dhclient (in the
 * foreground, chrooted into ROOT, in the machine's namespace) leases eth0 and records the lease where
 * cloud-init's CloudStack looks for the DHCP server. Resolves once the lease is written; the caller kills it.
 */
async function bringUpEth0(root: string, netns: string): Promise<ChildProcess> {
  rmSync(join(root, LEASES), { force: true });
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      netns,
      'chroot',
      root,
      '/sbin/dhclient',
      '-d',
      '-4',
      '-pf',
      '/run/dhclient.eth0.pid',
      '-lf',
      `/${LEASES}`,
      'eth0',
    ],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (existsSync(join(root, LEASES)) && readFileSync(join(root, LEASES), 'utf8').includes('dhcp-server-identifier'))
      return child;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`dhclient got no lease for eth0 within 30 s (exit ${child.exitCode})`);
}
