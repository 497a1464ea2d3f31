// The network a parity case's machine sees: its own namespace whose eth0 is a veth to a second namespace holding
// 169.254.169.254 (the mock metadata service, the built kiln's `devel serve-metadata`) and a busybox udhcpd.
// Both ends of the veth are created inside the namespaces, so nothing here touches the host's network.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NetCase } from './net-cases';

export const BUSYBOX = '/usr/bin/busybox';
/** The link between the machine and the cloud: the cloud's end, the router the DHCP lease names. */
const CLOUD_ADDRESS = '10.199.0.1/24';

export interface NetLab {
  /** The machine's namespace: the stages run in it (eth0, down, with the case's MAC; lo up). */
  machine: string;
  /** The cloud's namespace: udhcpd and the metadata service. */
  cloud: string;
  /** What the metadata service printed and logged (for failure messages). */
  serverOutput(): string;
  /** The service's request log so far (`--request-log`): one record a request, the password server's too. */
  requests(): Array<Record<string, unknown>>;
  close(): void;
}

function ip(args: string[]): void {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
}

/** Builds the namespaces, starts udhcpd and the metadata service; resolves once the service listens. */
export async function openNetLab(c: NetCase, kiln: string, work: string): Promise<NetLab> {
  const id = `${process.pid}-${Math.random().toString(36).slice(2, 7)}`;
  const machine = `kiln-par-m-${id}`;
  const cloud = `kiln-par-c-${id}`;
  const children: ChildProcess[] = [];
  let output = '';
  const requestLog = join(work, 'requests.log');
  const requests = () => readRequestLog(requestLog);
  const close = () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    spawnSync('ip', ['netns', 'del', machine]);
    spawnSync('ip', ['netns', 'del', cloud]);
  };
  try {
    ip(['netns', 'add', machine]);
    ip(['netns', 'add', cloud]);
    ip(['-n', machine, 'link', 'add', 'eth0', 'address', c.mac, 'type', 'veth', 'peer', 'name', 'cloud0', 'netns', cloud]);
    ip(['-n', machine, 'link', 'set', 'lo', 'up']);
    ip(['-n', cloud, 'link', 'set', 'lo', 'up']);
    for (const a of [CLOUD_ADDRESS, ...c.serve.addresses]) ip(['-n', cloud, 'addr', 'add', a, 'dev', 'cloud0']);
    ip(['-n', cloud, 'link', 'set', 'cloud0', 'up']);
    c.extraNics.forEach((nic, i) => {
      ip(['-n', machine, 'link', 'add', nic.name, 'address', nic.mac, 'type', 'veth', 'peer', 'name', `cloud${i + 1}`, 'netns', cloud]);
      ip(['-n', cloud, 'addr', 'add', nic.cloudAddress, 'dev', `cloud${i + 1}`]);
      ip(['-n', cloud, 'link', 'set', `cloud${i + 1}`, 'up']);
    });

    const dhcp = join(work, 'udhcpd');
    mkdirSync(dhcp, { recursive: true });
    writeFileSync(join(dhcp, 'leases'), '');
    const conf = [
      'start 10.199.0.10',
      'end 10.199.0.20',
      'interface cloud0',
      `lease_file ${join(dhcp, 'leases')}`,
      `pidfile ${join(dhcp, 'pid')}`,
      'opt router 10.199.0.1',
      'opt subnet 255.255.255.0',
      'opt lease 600',
      ...c.dhcpOptions,
      '',
    ];
    writeFileSync(join(dhcp, 'udhcpd.conf'), conf.join('\n'));
    children.push(spawn('ip', ['netns', 'exec', cloud, BUSYBOX, 'udhcpd', '-f', join(dhcp, 'udhcpd.conf')], { stdio: 'ignore' }));

    if (c.serve.kind === 'none') return { machine, cloud, serverOutput: () => output, requests, close };
    const server = spawn('ip', ['netns', 'exec', cloud, kiln, 'devel', 'serve-metadata', '--kind', c.serve.kind, '--dir', c.tree, '--listen', c.serve.listen, '--request-log', requestLog, ...c.serve.args], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(server);
    server.stdout?.on('data', (b: Buffer) => void (output += b.toString()));
    server.stderr?.on('data', (b: Buffer) => void (output += b.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the ${c.serve.kind} metadata service did not start in 30 s: ${output}`)), 30_000);
      const listening = () => {
        if (output.includes(c.serve.listen.replace(/:80$/, ''))) {
          clearTimeout(timer);
          resolve();
        }
      };
      server.stdout?.on('data', listening);
      server.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the ${c.serve.kind} metadata service exited ${code}: ${output}`));
      });
    });
  } catch (e) {
    close();
    throw e;
  }
  return { machine, cloud, serverOutput: () => output, requests, close };
}

/** The lines of a `--request-log` file, parsed (none yet: empty). */
function readRequestLog(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}
