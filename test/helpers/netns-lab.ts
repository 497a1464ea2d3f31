// A two-namespace network lab for init-local tests and the network parity cases: the machine's eth0 is one end of
// a veth pair made inside the namespaces, the "cloud" namespace holds the other end (10.199.0.1/24 and the metadata
// addresses) and, when asked, busybox udhcpd. The host's network is never touched; both namespaces go when the
// test ends (makeLab) or when the lab is closed (openLab).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { main } from '../../src/main';
import { tempDir } from './temp';

export const BUSYBOX = '/usr/bin/busybox';
/** The router and subnet udhcpd hands out unless a test gives its own options. */
export const DEFAULT_DHCP_OPTIONS = ['opt router 10.199.0.1', 'opt subnet 255.255.255.0'];

export interface Lab {
  /** The machine's namespace (eth0, down, with the given MAC). */
  client: string;
  /** The cloud's namespace (vs0). */
  server: string;
  dir: string;
}

export interface LabOptions {
  /** eth0's MAC (the NIC the fixture's metadata describes). */
  mac: string;
  /** udhcpd options (`opt …` lines) to serve leases with; false: no DHCP server on the link. */
  dhcp: string[] | false;
  /** Addresses on the cloud's end besides 10.199.0.1/24 (default: the metadata address 169.254.169.254/32). */
  serverAddresses?: string[];
  /** More NICs of the machine: each a veth whose cloud end (vs1, vs2…) holds serverAddress (CIDR) and is up. */
  extraNics?: Array<{ name: string; mac: string; serverAddress: string }>;
}

export interface OpenLab extends Lab {
  /** Kills udhcpd and deletes both namespaces. */
  close(): void;
}

/** Runs ARGV; its stdout, or an error naming the command and its stderr. */
export function sh(argv: string[]): string {
  const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** A lab whose namespaces go when T ends; its files in a temporary folder of T's. */
export function makeLab(t: TestContext, o: LabOptions): Lab {
  const lab = openLab(tempDir(t), o);
  t.after(() => lab.close());
  return lab;
}

/** A lab with its files (udhcpd's conf and leases) in DIR; the caller closes it. */
export function openLab(dir: string, o: LabOptions): OpenLab {
  const id = `${process.pid}-${Math.random().toString(36).slice(2, 7)}`;
  const children: ChildProcess[] = [];
  const lab: OpenLab = {
    client: `kiln-lab-c-${id}`,
    server: `kiln-lab-s-${id}`,
    dir,
    close() {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      spawnSync('ip', ['netns', 'del', lab.client]);
      spawnSync('ip', ['netns', 'del', lab.server]);
    },
  };
  try {
    sh(['ip', 'netns', 'add', lab.client]);
    sh(['ip', 'netns', 'add', lab.server]);
    sh([
      'ip',
      '-n',
      lab.client,
      'link',
      'add',
      'eth0',
      'address',
      o.mac,
      'type',
      'veth',
      'peer',
      'name',
      'vs0',
      'netns',
      lab.server,
    ]);
    sh(['ip', '-n', lab.client, 'link', 'set', 'lo', 'up']);
    const addresses = ['10.199.0.1/24', ...(o.serverAddresses ?? ['169.254.169.254/32'])];
    for (const cmd of [
      ['link', 'set', 'lo', 'up'],
      ...addresses.map((a) => ['addr', 'add', a, 'dev', 'vs0']),
      ['link', 'set', 'vs0', 'up'],
    ])
      sh(['ip', '-n', lab.server, ...cmd]);
    (o.extraNics ?? []).forEach((nic, i) => {
      sh([
        'ip',
        '-n',
        lab.client,
        'link',
        'add',
        nic.name,
        'address',
        nic.mac,
        'type',
        'veth',
        'peer',
        'name',
        `vs${i + 1}`,
        'netns',
        lab.server,
      ]);
      sh(['ip', '-n', lab.server, 'addr', 'add', nic.serverAddress, 'dev', `vs${i + 1}`]);
      sh(['ip', '-n', lab.server, 'link', 'set', `vs${i + 1}`, 'up']);
    });
    if (o.dhcp) children.push(serveDhcp(lab, 'vs0', o.dhcp));
  } catch (e) {
    lab.close();
    throw e;
  }
  return lab;
}

/**
 * busybox udhcpd on the cloud's end IFACE (vs0, or the veth a test adds in its place), handing out
 * 10.199.0.10–20 with OPTIONS; the caller kills the process it returns.
 */
export function serveDhcp(lab: Lab, iface: string, options: string[]): ChildProcess {
  const conf = join(lab.dir, `udhcpd.${iface}.conf`);
  writeFileSync(join(lab.dir, `udhcpd.${iface}.leases`), '');
  writeFileSync(
    conf,
    [
      'start 10.199.0.10',
      'end 10.199.0.20',
      `interface ${iface}`,
      `lease_file ${join(lab.dir, `udhcpd.${iface}.leases`)}`,
      `pidfile ${join(lab.dir, `udhcpd.${iface}.pid`)}`,
      ...options,
      'opt lease 600',
      '',
    ].join('\n'),
  );
  return spawn('ip', ['netns', 'exec', lab.server, BUSYBOX, 'udhcpd', '-f', conf], { stdio: 'ignore' });
}

/**
 * A lab test file also runs, started again inside a namespace, as the processes the lab needs: kiln itself or
 * a mock metadata server, each kiln's main() with an argv handed over in the environment.
 */
const ROLE_ENV = 'KILN_TEST_NETNS_ROLE';
const ARGV_ENV = 'KILN_TEST_NETNS_ARGV';

/** The environment that makes this file, started again, play ROLE: kiln's main() with ARGV. */
export function roleEnv(role: 'kiln' | 'serve', argv: string[]): NodeJS.ProcessEnv {
  return { ...process.env, [ROLE_ENV]: role, [ARGV_ENV]: JSON.stringify(argv) };
}

/**
 * `kiln devel serve-metadata ARGS` in the lab's server namespace (this test file started again in the serve role),
 * killed when T ends; resolves once its output names READY (by default the ' at http://' of its listening line),
 * and fails when it exits first or stays silent for 20 s.
 */
export function serveMetadataInLab(
  t: TestContext,
  lab: Lab,
  args: string[],
  ready = ' at http://',
): Promise<ChildProcess> {
  const kind = args[args.indexOf('--kind') + 1] ?? 'metadata';
  const child = spawn('ip', ['netns', 'exec', lab.server, process.execPath, process.argv[1] as string], {
    env: roleEnv('serve', ['devel', 'serve-metadata', ...args]),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => void child.kill('SIGKILL'));
  return new Promise<ChildProcess>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the ${kind} mock did not start: ${out}`)), 20_000);
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.stderr.on('data', (b: Buffer) => void (out += b.toString()));
    child.on('exit', (code) => reject(new Error(`the ${kind} mock exited ${code}: ${out}`)));
  });
}

/**
 * When this process was started to play a role, plays it and returns true: kiln exits with its code, a
 * metadata server keeps running until the test kills it. False in the test process itself.
 */
export async function playRole(): Promise<boolean> {
  const role = process.env[ROLE_ENV];
  if (!role) return false;
  const argv = JSON.parse(process.env[ARGV_ENV] ?? '[]') as string[];
  const code = await main({
    argv,
    argv0: 'cloud-init',
    env: process.env,
    io: { out: (s) => void process.stdout.write(s), err: (s) => void process.stderr.write(s) },
  });
  if (role === 'kiln') process.exit(code);
  return true;
}
