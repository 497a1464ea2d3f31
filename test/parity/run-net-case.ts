// Runs one network parity case on one side: a rootfs copy whose stages run in the case's network lab with fake DMI.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyRootfs } from '../helpers/debian-rootfs';
import type { NetCase } from './net-cases';
import { openNetLab } from './net-lab';
import { AFTER_INIT_LOCAL, INIT_LOCAL_FILES, snapshotView } from './net-view';
import { checkExpectations, sideName, type Side } from './run-case';
import { installKiln, runStage, STAGES, type StageRun } from './sandbox-stages';
import type { Tree } from './tree-snapshot';

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
  return `datasource_list: [${c.datasourceList.join(', ')}]\ndisable_network_activation: true\n${c.config}`;
}

export async function runNetCaseOnSide(c: NetCase, side: Side, work: string, kiln: string): Promise<NetSideResult> {
  const name = sideName(side);
  const root = join(work, name);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  copyRootfs(root);
  if (side !== 'cloud-init') installKiln(root, side.kilnBinary);
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90-kiln-parity.cfg'), parityConfig(c));
  // The rootfs keeps the build host's resolver, unreachable from the lab: every lookup (cloud-init resolves
  // made-up names first to detect DNS redirection) would wait 30 s. A resolver on the machine's own loopback
  // with nothing listening fails at once, as a cloud without DNS does.
  rmSync(join(root, 'etc/resolv.conf'), { force: true });
  writeFileSync(join(root, 'etc/resolv.conf'), 'nameserver 127.0.0.1\n');
  const dmiDir = join(work, `${name}-dmi`);
  mkdirSync(dmiDir, { recursive: true });
  for (const [field, value] of Object.entries(c.dmi)) writeFileSync(join(dmiDir, field), `${value}\n`);

  const lab = await openNetLab(c, kiln, join(work, `${name}-lab`));
  try {
    const net = { netns: lab.machine, dmiDir };
    const [local, ...later] = STAGES;
    // A fixed hash seed makes cloud-init's set orders (authorized keys) the same on every run.
    const env: Record<string, string> = side === 'cloud-init' ? { PYTHONHASHSEED: '2' } : {};
    const stages = [runStage(root, local as (typeof STAGES)[number], 120_000, env, net)];
    const view = snapshotView(root, INIT_LOCAL_FILES, AFTER_INIT_LOCAL);
    const dhclient = c.networkUp === 'dhclient' ? await bringUpEth0(root, lab.machine) : undefined;
    try {
      for (const s of later) stages.push(runStage(root, s, 120_000, env, net));
    } finally {
      dhclient?.kill('SIGKILL');
    }
    for (const [path, entry] of snapshotView(root)) view.set(path, entry);
    return { root, stages, view, unmet: checkExpectations(root, c.expect), server: lab.serverOutput() };
  } finally {
    lab.close();
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
  const child = spawn('ip', ['netns', 'exec', netns, 'chroot', root, '/sbin/dhclient', '-d', '-4', '-pf', '/run/dhclient.eth0.pid', '-lf', `/${LEASES}`, 'eth0'], { stdio: 'ignore' });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (existsSync(join(root, LEASES)) && readFileSync(join(root, LEASES), 'utf8').includes('dhcp-server-identifier')) return child;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`dhclient got no lease for eth0 within 30 s (exit ${child.exitCode})`);
}
