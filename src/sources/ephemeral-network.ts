// Short-lived networking for sources read before the network is configured (cloud-init's ephemeral DHCP), through the platform.
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';
import { fsPromises } from '../util/on-demand-builtins';
import { parseDhclientLease } from './dhclient-lease';
import { leaseRouteSteps, parseUdhcpcStaticRoutes, type StaticRoute } from './dhcp-static-routes';
import { SourceError } from './source-error';

/** A lease that is up; `release()` undoes everything `up()` did. */
export interface EphemeralLease {
  interface: string;
  release(): Promise<void>;
}

/** Injected into CrawlContext; tests pass a fake that records calls. */
export interface EphemeralNetwork {
  up(): Promise<EphemeralLease>;
}

export interface LinuxDhcpOptions {
  platform: Platform;
  log: Log;
  /** Interface to use; by default the first non-loopback one under /sys/class/net with a carrier or an address file. */
  interface?: string;
  timeoutMs?: number;
  /**
   * Whether kiln runs in the host's network namespace (default: /proc/self/ns/net against PID 1's). Under a
   * --root other than '/', commands see kiln's network namespace, so a lease there would change the host.
   */
  sharesHostNetwork?: () => Promise<boolean>;
}

/**
 * The lease cannot be taken here without touching a network that is not the target's (a --root sandbox in
 * the host's network namespace): the source is left to the init stage, not reported as failed.
 */
export class EphemeralNetworkRefused extends SourceError {}

/** The fixed inode of the initial network namespace on recent kernels (PROC_NET_INIT_INO); older ones fall to the checks below. */
const INIT_NET_INODE = 0xeffffff9;

/**
 * True when this process is in the host's network namespace, or when that cannot be told (then it is assumed):
 * the initial namespace's fixed inode, else PID 1's namespace, else (PID 1 unreadable, as in a container without
 * ptrace rights) not a namespace named under /run/netns (`ip netns identify`'s test).
 */
export async function sharesHostNetworkNamespace(): Promise<boolean> {
  const fs = fsPromises();
  try {
    const own = await fs.stat('/proc/self/ns/net');
    if (own.ino === INIT_NET_INODE) return true;
    try {
      return (await fs.stat('/proc/1/ns/net')).ino === own.ino;
    } catch {
      const named = await fs.readdir('/run/netns').catch(() => [] as string[]);
      for (const name of named) {
        const st = await fs.stat(`/run/netns/${name}`).catch(() => undefined);
        if (st && st.ino === own.ino && st.dev === own.dev) return false;
      }
      return true;
    }
  } catch {
    return true;
  }
}

/**
 * udhcpc's hook: it only reports the lease (kiln applies it, as with dhclient), never touches resolv.conf or
 * the distro's hooks (cloud-init applies a lease so). `staticroutes` is option 121, requested with -O.
 */
const UDHCPC_SCRIPT = `#!/bin/sh
# kiln's temporary DHCP lease for init-local; removed with the lease.
case "$1" in
  deconfig) ip -4 addr flush dev "$interface" ;;
  bound|renew)
    echo "kiln-lease ip=$ip"
    echo "kiln-lease mask=\${mask:-32}"
    echo "kiln-lease router=$router"
    echo "kiln-lease staticroutes=$staticroutes"
    ;;
esac
exit 0
`;

/** What kiln applies from a lease, whichever client got it. */
interface LeaseFacts {
  address: string;
  prefix: number;
  routers: string[];
  staticRoutes: StaticRoute[];
  routeProblems: string[];
}

/** The `kiln-lease key=value` lines UDHCPC_SCRIPT printed; undefined when it printed no address. */
export function parseUdhcpcReport(stdout: string): LeaseFacts | undefined {
  const facts: Record<string, string> = {};
  for (const m of stdout.matchAll(/^kiln-lease (\w+)=(.*)$/gm)) facts[m[1] as string] = (m[2] as string).trim();
  const address = facts.ip ?? '';
  const prefix = Number(facts.mask);
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(address) || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) return undefined;
  const routeProblems: string[] = [];
  return {
    address,
    prefix,
    routers: (facts.router ?? '').split(/\s+/).filter((r) => /^\d{1,3}(\.\d{1,3}){3}$/.test(r)),
    staticRoutes: parseUdhcpcStaticRoutes(facts.staticroutes ?? '', routeProblems),
    routeProblems,
  };
}

/**
 * Applies LEASE to NIC as cloud-init's EphemeralIPv4Network does: the address, then option 121's routes (the
 * routers ignored) or the first router that takes (an on-link host route to it first, so a router outside
 * the leased subnet works; none when a default route exists). Returns the commands that undo the routes.
 */
async function applyLease(platform: Platform, log: Log, nic: string, lease: LeaseFacts): Promise<string[][]> {
  for (const p of lease.routeProblems) log.warn(`temporary DHCP lease on ${nic}: ${p}; the routes before it are used`);
  await platform.run(['ip', '-4', 'addr', 'add', `${lease.address}/${lease.prefix}`, 'broadcast', '+', 'dev', nic]);
  const cleanup: string[][] = [];
  let how: string;
  if (lease.staticRoutes.length > 0) {
    for (const step of leaseRouteSteps(nic, lease.address, undefined, lease.staticRoutes)) {
      const r = await platform.run(step.add, { allowFailure: true, timeoutMs: 5000 });
      if (r.code === 0) cleanup.unshift(step.undo);
      else log.warn(`temporary DHCP lease on ${nic}: route ${step.add.slice(4).join(' ')} not installed: ${r.stderr.trim()}`);
    }
    how = `routes ${lease.staticRoutes.map((r) => `${r.destination} via ${r.gateway}`).join(', ')} (option 121; routers ignored)`;
  } else {
    const existing = await platform.run(['ip', 'route', 'show', '0.0.0.0/0'], { allowFailure: true, timeoutMs: 5000 });
    const defaultExists = existing.code === 0 && /\bdefault\b/.test(existing.stdout);
    if (defaultExists) log.debug(`temporary DHCP lease on ${nic}: a default route exists already (${existing.stdout.trim()}); left alone`);
    let used: string | undefined;
    for (const router of defaultExists ? [] : lease.routers) {
      const steps = leaseRouteSteps(nic, lease.address, router, []);
      const done: string[][] = [];
      for (const step of steps) {
        if ((await platform.run(step.add, { allowFailure: true, timeoutMs: 5000 })).code !== 0) break;
        done.unshift(step.undo);
      }
      if (done.length === steps.length) {
        cleanup.push(...done);
        used = router;
        break;
      }
      // This router did not take: undo its host route and try the next.
      for (const cmd of done) await platform.run(cmd, { allowFailure: true, timeoutMs: 5000 });
    }
    how = `router ${used ?? lease.routers[0] ?? 'none'}`;
  }
  log.info(`temporary DHCP lease on ${nic}: ${lease.address}/${lease.prefix} ${how}`);
  return cleanup;
}

/** Runs fn with a lease held when NETWORK is given (released afterwards, even on error), or directly when not. */
export async function withEphemeralNetwork<T>(network: EphemeralNetwork | undefined, fn: () => Promise<T>): Promise<T> {
  if (!network) return fn();
  const lease = await network.up();
  try {
    return await fn();
  } finally {
    await lease.release();
  }
}

/**
 * Picks the interface cloud-init's fallback would: the first non-virtual NIC, preferring eth0. Under a --root
 * the root's /sys is not the network kiln is in, so the names come from `ip -o link` run in the target.
 */
export async function fallbackInterface(platform: Platform): Promise<string | undefined> {
  let names: string[];
  try {
    names = platform.root === '/' ? await platform.listDir('/sys/class/net') : await linkNames(platform);
  } catch {
    return undefined;
  }
  const real = names.filter((n) => n !== 'lo' && !/^(docker|veth|virbr|br-|tun|tap|wg)/.test(n));
  return real.includes('eth0') ? 'eth0' : real[0];
}

/** Interface names from `ip -o link show` ('2: eth0@if3: <…>' → 'eth0'). */
async function linkNames(platform: Platform): Promise<string[]> {
  const r = await platform.run(['ip', '-o', 'link', 'show'], { allowFailure: true, timeoutMs: 5000 });
  if (r.code !== 0) return [];
  return r.stdout.split('\n').flatMap((line) => {
    const m = /^\d+:\s+([^:@\s]+)/.exec(line);
    return m ? [m[1] as string] : [];
  });
}

/** Whether NIC's link is administratively up now ('<…,UP,…>' in `ip -o link show dev NIC`). */
async function linkIsUp(platform: Platform, nic: string): Promise<boolean> {
  const r = await platform.run(['ip', '-o', 'link', 'show', 'dev', nic], { allowFailure: true, timeoutMs: 5000 });
  return r.code === 0 && /<[^>]*\bUP\b[^>]*>/.test(r.stdout);
}

/**
 * DHCP with dhclient (one shot, `-sf /bin/true`, the lease applied by kiln) or busybox udhcpc (kiln's own hook
 * script). The lease is dropped with `dhclient -r` and an address flush, as cloud-init tears its lease down.
 */
export class LinuxEphemeralDhcp implements EphemeralNetwork {
  constructor(private readonly opts: LinuxDhcpOptions) {}

  async up(): Promise<EphemeralLease> {
    const { platform, log } = this.opts;
    if (platform.root !== '/' && (await (this.opts.sharesHostNetwork ?? sharesHostNetworkNamespace)())) {
      throw new EphemeralNetworkRefused('ephemeral-dhcp', `no temporary DHCP lease under --root ${platform.root}: kiln runs in the host's network namespace and would change the host's interfaces (run it in the target's own, e.g. with ip netns exec)`);
    }
    const nic = this.opts.interface ?? (await fallbackInterface(platform));
    if (!nic) throw new SourceError('ephemeral-dhcp', 'no network interface (besides loopback and virtual ones) to bring up a temporary DHCP lease on');
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    const pidFile = `/run/kiln-ephemeral-dhcp.${nic}.pid`;
    const leaseFile = `/run/kiln-ephemeral-dhcp.${nic}.lease`;
    // The link goes back down afterwards when it was down before, as cloud-init's ephemeral network leaves it.
    const wasUp = await linkIsUp(platform, nic);
    await platform.run(['ip', 'link', 'set', 'dev', nic, 'up'], { allowFailure: true, timeoutMs: 5000 });
    const linkBack = async () => {
      if (!wasUp) await platform.run(['ip', 'link', 'set', 'dev', nic, 'down'], { allowFailure: true, timeoutMs: 5000 });
    };
    const hasDhclient = (await platform.run(['sh', '-c', 'command -v dhclient'], { allowFailure: true })).code === 0;
    if (hasDhclient) {
      // As cloud-init: dhclient only talks DHCP (-sf /bin/true runs no distro hook, so resolv.conf and the
      // hooks are left alone); kiln applies the lease from the lease file itself.
      log.debug(`bringing up a temporary DHCP lease on ${nic} with dhclient`);
      const dhclient = ['-lf', leaseFile, '-pf', pidFile, '-sf', '/bin/true', nic];
      await platform.remove(leaseFile);
      let routeCleanup: string[][] = [];
      const release = async () => {
        for (const cmd of routeCleanup) await platform.run(cmd, { allowFailure: true, timeoutMs: 5000 });
        // Sends DHCPRELEASE and stops a dhclient still running from the pid file; then the address goes.
        await platform.run(['dhclient', '-r', ...dhclient], { allowFailure: true, timeoutMs: 10_000 });
        await platform.run(['ip', '-4', 'addr', 'flush', 'dev', nic], { allowFailure: true, timeoutMs: 5000 });
        await platform.remove(leaseFile);
        await platform.remove(pidFile);
        await linkBack();
      };
      const r = await platform.run(['dhclient', '-1', '-v', ...dhclient], { allowFailure: true, timeoutMs });
      try {
        if (r.code !== 0) throw new SourceError('ephemeral-dhcp', `no DHCP answer on ${nic}: dhclient got no lease (exit ${r.code}): ${r.stderr.trim().split('\n').pop() ?? ''}`);
        const lease = parseDhclientLease((await platform.readTextIfExists(leaseFile)) ?? '', leaseFile);
        routeCleanup = await applyLease(platform, log, nic, lease);
      } catch (err) {
        await release();
        throw err;
      }
      return { interface: nic, release };
    }
    log.debug(`bringing up a temporary DHCP lease on ${nic} with udhcpc`);
    const script = `/run/kiln-ephemeral-dhcp.${nic}.script`;
    await platform.writeFile(script, UDHCPC_SCRIPT, { mode: 0o755 });
    let routeCleanup: string[][] = [];
    const release = async () => {
      for (const cmd of routeCleanup) await platform.run(cmd, { allowFailure: true, timeoutMs: 5000 });
      await platform.run(['ip', '-4', 'addr', 'flush', 'dev', nic], { allowFailure: true, timeoutMs: 5000 });
      await platform.remove(script);
      await linkBack();
    };
    // Foreground, quit once bound, give up after 3 discovers 2 s apart: a cloud with no DHCP costs seconds, not
    // minutes. Option 121 is asked for, as Debian's dhclient.conf asks for it.
    const r = await platform.run(['udhcpc', '-f', '-q', '-n', '-t', '3', '-T', '2', '-O', 'staticroutes', '-i', nic, '-s', script], { allowFailure: true, timeoutMs });
    try {
      if (r.code !== 0) throw new SourceError('ephemeral-dhcp', `no DHCP answer on ${nic}: udhcpc got no lease (exit ${r.code})`);
      const lease = parseUdhcpcReport(r.stdout);
      if (!lease) throw new SourceError('ephemeral-dhcp', `udhcpc on ${nic} reported no usable address: ${r.stdout.trim().split('\n').slice(-4).join(' | ')}`);
      routeCleanup = await applyLease(platform, log, nic, lease);
    } catch (err) {
      await release();
      throw err;
    }
    return { interface: nic, release };
  }
}
