// Short-lived networking for sources read before the network is configured (cloud-init's ephemeral DHCP or IPv4
// link-local address), through the platform.
import type { Platform } from '../../platform/platform';
import type { Log } from '../../util/log';
import { monotonicMs } from '../../util/monotonic-clock';
import { fsPromises } from '../../util/on-demand-builtins';
import { parseDhclientLease } from './dhclient-lease';
import { leaseRouteSteps, parseUdhcpcStaticRoutes, type StaticRoute } from './dhcp-static-routes';
import { EphemeralNetworkError, HostNetworkRefused } from './ephemeral-network-error';

/** A lease that is up; `release()` undoes everything `up()` did. */
export interface EphemeralLease {
  interface: string;
  /** What is usable, when it is not simply a DHCPv4 lease: 'using link-local ipv6' (cloud-init's state message). */
  state?: string;
  /** A DHCPv4 lease's option 121 routes as leased (Azure tells its primary NIC by them). */
  staticRoutes?: readonly StaticRoute[];
  release(): Promise<void>;
}

/**
 * How the temporary network comes up: a DHCP lease (most clouds), or a random IPv4 link-local address
 * (169.254.0.0/16) where the metadata service answers on the link without DHCP (DigitalOcean's ip4LL).
 */
export type EphemeralMode = 'dhcp' | 'link-local';

/** What a source asks of the temporary network (cloud-init's EphemeralIPNetwork arguments). */
export interface EphemeralUpOptions {
  /** 'dhcp' by default. */
  mode?: EphemeralMode;
  /**
   * Also bring up IPv6 on the interface (its link-local address, usable once duplicate address detection is
   * done; routes come from router advertisements), and go on with IPv6 alone when DHCPv4 gets no lease:
   * Ec2Local's ipv6=True, for IMDS at fd00:ec2::254. DHCP mode only.
   */
  ipv6?: boolean;
  /** The NIC to use instead of the fallback one (GCELocal tries each candidate NIC in turn). DHCP mode only. */
  interface?: string;
  /**
   * false (with `ipv6`): IPv6 only, no DHCP client at all, as cloud-init's EphemeralIPv6Network and
   * EphemeralIPNetwork(ipv4=False, ipv6=True) (Scaleway's read over IPv6 after DHCPv4 failed, Akamai's first try).
   */
  ipv4?: boolean;
}

/** Injected into CrawlContext; tests pass a fake that records calls. The source picks the mode. */
export interface EphemeralNetwork {
  up(opts?: EphemeralUpOptions): Promise<EphemeralLease>;
}

export interface LinuxDhcpOptions {
  platform: Platform;
  log: Log;
  /** Interface to use; by default the first non-loopback one under /sys/class/net with a carrier or an address file. */
  interface?: string;
  timeoutMs?: number;
  /** How long IPv6 may take to have a usable link-local address (duplicate address detection); default 10 s. */
  ipv6WaitMs?: number;
  /**
   * Whether kiln runs in the host's network namespace (default: /proc/self/ns/net against PID 1's). Under a
   * --root other than '/', commands see kiln's network namespace, so a lease there would change the host.
   */
  sharesHostNetwork?: () => Promise<boolean>;
}

/**
 * The fixed inode of the initial network namespace on recent kernels (PROC_NET_INIT_INO); older ones fall to the checks
 * below.
 */
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
      // PID 1's namespace cannot be read (no /proc of the host): the named namespaces are looked at instead.
      const named = await fs.readdir('/run/netns').catch(() => [] as string[]);
      for (const name of named) {
        const st = await fs.stat(`/run/netns/${name}`).catch(() => undefined);
        if (st && st.ino === own.ino && st.dev === own.dev) return false;
      }
      return true;
    }
  } catch {
    // A namespace that cannot be read is taken for the host's: refusing is the safe answer.
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
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(address) || !Number.isInteger(prefix) || prefix < 0 || prefix > 32)
    return undefined;
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
      else
        log.warn(
          `temporary DHCP lease on ${nic}: route ${step.add.slice(4).join(' ')} not installed: ${r.stderr.trim()}`,
        );
    }
    how = `routes ${lease.staticRoutes.map((r) => `${r.destination} via ${r.gateway}`).join(', ')} (option 121; routers ignored)`;
  } else {
    const existing = await platform.run(['ip', 'route', 'show', '0.0.0.0/0'], { allowFailure: true, timeoutMs: 5000 });
    const defaultExists = existing.code === 0 && /\bdefault\b/.test(existing.stdout);
    if (defaultExists)
      log.debug(
        `temporary DHCP lease on ${nic}: a default route exists already (${existing.stdout.trim()}); left alone`,
      );
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

/**
 * Picks the interface cloud-init's fallback would: the first non-virtual NIC, preferring eth0. Under a --root
 * the root's /sys is not the network kiln is in, so the names come from `ip -o link` run in the target.
 */
export async function fallbackInterface(platform: Platform): Promise<string | undefined> {
  let names: string[];
  try {
    names = platform.root === '/' ? await platform.listDir('/sys/class/net') : await linkNames(platform);
  } catch {
    // Links that cannot be listed leave the choice of a NIC to the caller.
    return undefined;
  }
  const real = names.filter((n) => n !== 'lo' && !/^(docker|veth|virbr|br-|tun|tap|wg)/.test(n));
  return real.includes('eth0') ? 'eth0' : real[0];
}

/**
 * Interfaces from `ip -o link show` ('2: eth0@if3: <…>' → 2, 'eth0') in the target's network namespace, in ifindex
 * order; empty when ip fails.
 */
export async function linkList(platform: Platform): Promise<Array<{ index: number; name: string }>> {
  const r = await platform.run(['ip', '-o', 'link', 'show'], { allowFailure: true, timeoutMs: 5000 });
  if (r.code !== 0) return [];
  return r.stdout
    .split('\n')
    .flatMap((line) => {
      const m = /^(\d+):\s+([^:@\s]+)/.exec(line);
      return m ? [{ index: Number(m[1]), name: m[2] as string }] : [];
    })
    .sort((a, b) => a.index - b.index);
}

async function linkNames(platform: Platform): Promise<string[]> {
  return (await linkList(platform)).map((l) => l.name);
}

/** Virtual devices no cloud's metadata service sits behind (cloud-init keeps physical NICs only). */
export const VIRTUAL_NIC = /^(lo$|docker|veth|virbr|br-|tun|tap|wg)/;

/**
 * The NIC with the lowest ifindex that is not loopback or virtual: the one cloud-init's DigitalOcean helper puts
 * its link-local address on. The indexes come from `ip -o link` in the target's network namespace.
 */
export async function lowestIndexInterface(platform: Platform): Promise<string | undefined> {
  return (await linkNames(platform)).find((n) => !VIRTUAL_NIC.test(n));
}

/** A random address in 169.254.1.0–169.254.168.255 (cloud-init's ip4LL range), with the /16 of the link-local net. */
export function randomLinkLocalAddress(random: () => number = Math.random): string {
  const third = 1 + Math.floor(random() * 168);
  const fourth = Math.floor(random() * 256);
  return `169.254.${third}.${fourth}/16`;
}

/** Refuses to change interfaces under a --root that shares the host's network namespace (see LinuxDhcpOptions). */
async function refuseOnHostNetwork(opts: LinuxDhcpOptions, what: string): Promise<void> {
  const { platform } = opts;
  if (platform.root !== '/' && (await (opts.sharesHostNetwork ?? sharesHostNetworkNamespace)())) {
    throw new HostNetworkRefused(
      `ephemeral-${what}`,
      `no temporary ${what === 'dhcp' ? 'DHCP lease' : 'link-local address'} under --root ${platform.root}: kiln runs in the host's network namespace and would change the host's interfaces (run it in the target's own, e.g. with ip netns exec)`,
    );
  }
}

/** Whether NIC's link is administratively up now ('<…,UP,…>' in `ip -o link show dev NIC`). */
async function linkIsUp(platform: Platform, nic: string): Promise<boolean> {
  const r = await platform.run(['ip', '-o', 'link', 'show', 'dev', nic], { allowFailure: true, timeoutMs: 5000 });
  return r.code === 0 && /<[^>]*\bUP\b[^>]*>/.test(r.stdout);
}

/**
 * cloud-init's EphemeralIPv6Network: the link up (the kernel then gives it a link-local address and solicits
 * routers), and, beyond cloud-init, a wait (polling `ip -6 addr`, up to WAIT_MS) until that address has passed
 * duplicate address detection, so the first request does not fail on a tentative address. The address, or
 * undefined when none became usable (IPv6 off on the link, DAD failed, no `ip`).
 */
export async function usableLinkLocalIpv6(
  platform: Platform,
  log: Log,
  nic: string,
  waitMs: number,
): Promise<string | undefined> {
  if (!(await linkIsUp(platform, nic))) {
    const r = await platform.run(['ip', 'link', 'set', 'dev', nic, 'up'], { allowFailure: true, timeoutMs: 5000 });
    if (r.code !== 0) {
      log.debug(`ephemeral ipv6: could not set ${nic} up: ${r.stderr.trim()}`);
      return undefined;
    }
  }
  const started = monotonicMs();
  const deadline = started + waitMs;
  for (;;) {
    const r = await platform.run(['ip', '-6', '-o', 'addr', 'show', 'dev', nic, 'scope', 'link'], {
      allowFailure: true,
      timeoutMs: 5000,
    });
    const line = r.code === 0 ? r.stdout.split('\n').find((l) => /\binet6 fe80:/i.test(l)) : undefined;
    const address = line ? /\binet6 (\S+)/.exec(line)?.[1] : undefined;
    if (address && /\bdadfailed\b/.test(line ?? '')) {
      log.warn(`ephemeral ipv6: the link-local address ${address} on ${nic} failed duplicate address detection`);
      return undefined;
    }
    if (address && !/\btentative\b/.test(line ?? '')) return address;
    // The kernel adds the (tentative) address as the link comes up: none after a while means IPv6 is off there.
    const noAddressYet = !address && monotonicMs() - started >= Math.min(waitMs, 3000);
    if (noAddressYet || monotonicMs() >= deadline) {
      log.debug(
        `ephemeral ipv6: no usable link-local address on ${nic} within ${waitMs} ms${address ? ` (${address} still tentative)` : ''}`,
      );
      return undefined;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * DHCP with dhclient (one shot, `-sf /bin/true`, the lease applied by kiln) or busybox udhcpc (kiln's own hook
 * script). The lease is dropped with `dhclient -r` and an address flush, as cloud-init tears its lease down.
 * In 'link-local' mode no DHCP client runs: a random IPv4 link-local address stands in for the lease.
 */
export class LinuxEphemeralDhcp implements EphemeralNetwork {
  constructor(private readonly opts: LinuxDhcpOptions) {}

  async up(opts: EphemeralUpOptions = {}): Promise<EphemeralLease> {
    if (opts.mode === 'link-local') return this.linkLocal();
    const { platform, log } = this.opts;
    await refuseOnHostNetwork(this.opts, 'dhcp');
    const nic = opts.interface ?? this.opts.interface ?? (await fallbackInterface(platform));
    if (!nic)
      throw new EphemeralNetworkError(
        'ephemeral-dhcp',
        'no network interface (besides loopback and virtual ones) to bring up a temporary DHCP lease on',
      );
    if (!opts.ipv6) return this.dhcpv4(nic);
    if (opts.ipv4 === false) {
      const v6 = await usableLinkLocalIpv6(platform, log, nic, this.opts.ipv6WaitMs ?? 10_000);
      if (!v6)
        throw new EphemeralNetworkError(
          'ephemeral-ipv6',
          `no usable IPv6 link-local address on ${nic} (IPv6 off there, or duplicate address detection failed)`,
        );
      log.info(`temporary network on ${nic}: IPv6 only, link-local ${v6}`);
      return { interface: nic, release: async () => undefined };
    }
    // As cloud-init's EphemeralIPNetwork: DHCPv4 first, then IPv6; either one is enough, and when neither
    // works the DHCPv4 error is the one reported.
    let v4: EphemeralLease | undefined;
    let v4Error: unknown;
    try {
      v4 = await this.dhcpv4(nic);
    } catch (err) {
      v4Error = err;
    }
    // With a DHCPv4 lease the link is up and IPv6 comes with it; nothing is waited for, as in cloud-init.
    if (v4) return v4;
    const v6 = await usableLinkLocalIpv6(platform, log, nic, this.opts.ipv6WaitMs ?? 10_000);
    if (!v6) throw v4Error;
    log.info(`temporary network on ${nic}: no DHCPv4 lease, using link-local ipv6 (${v6})`);
    // cloud-init leaves the link up after IPv6 (its EphemeralIPv6Network has nothing to undo).
    return { interface: nic, state: 'using link-local ipv6', release: async () => undefined };
  }

  /** A DHCPv4 lease on NIC, with dhclient or udhcpc; released with its address, the link set down if it was. */
  private async dhcpv4(nic: string): Promise<EphemeralLease> {
    const { platform, log } = this.opts;
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    const pidFile = `/run/kiln-ephemeral-dhcp.${nic}.pid`;
    const leaseFile = `/run/kiln-ephemeral-dhcp.${nic}.lease`;
    // The link goes back down afterwards when it was down before, as cloud-init's ephemeral network leaves it.
    const wasUp = await linkIsUp(platform, nic);
    await platform.run(['ip', 'link', 'set', 'dev', nic, 'up'], { allowFailure: true, timeoutMs: 5000 });
    const linkBack = async () => {
      if (!wasUp)
        await platform.run(['ip', 'link', 'set', 'dev', nic, 'down'], { allowFailure: true, timeoutMs: 5000 });
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
        if (r.code !== 0)
          throw new EphemeralNetworkError(
            'ephemeral-dhcp',
            `no DHCP answer on ${nic}: dhclient got no lease (exit ${r.code}): ${r.stderr.trim().split('\n').pop() ?? ''}`,
          );
        const lease = parseDhclientLease((await platform.readTextIfExists(leaseFile)) ?? '', leaseFile);
        routeCleanup = await applyLease(platform, log, nic, lease);
        return { interface: nic, staticRoutes: lease.staticRoutes, release };
      } catch (err) {
        await release();
        throw err;
      }
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
    const r = await platform.run(
      ['udhcpc', '-f', '-q', '-n', '-t', '3', '-T', '2', '-O', 'staticroutes', '-i', nic, '-s', script],
      { allowFailure: true, timeoutMs },
    );
    try {
      if (r.code !== 0)
        throw new EphemeralNetworkError(
          'ephemeral-dhcp',
          `no DHCP answer on ${nic}: udhcpc got no lease (exit ${r.code})`,
        );
      const lease = parseUdhcpcReport(r.stdout);
      if (!lease)
        throw new EphemeralNetworkError(
          'ephemeral-dhcp',
          `udhcpc on ${nic} reported no usable address: ${r.stdout.trim().split('\n').slice(-4).join(' | ')}`,
        );
      routeCleanup = await applyLease(platform, log, nic, lease);
      return { interface: nic, staticRoutes: lease.staticRoutes, release };
    } catch (err) {
      await release();
      throw err;
    }
  }

  /**
   * cloud-init's DigitalOcean ip4LL: a random 169.254.x.y/16 on the lowest-index NIC, the link brought up. Only
   * that address is deleted afterwards (cloud-init flushes every address of the NIC), and the link goes down
   * again when it was down before.
   */
  private async linkLocal(): Promise<EphemeralLease> {
    const { platform, log } = this.opts;
    await refuseOnHostNetwork(this.opts, 'link-local');
    const nic = this.opts.interface ?? (await lowestIndexInterface(platform));
    if (!nic)
      throw new EphemeralNetworkError(
        'ephemeral-link-local',
        'no network interface (besides loopback and virtual ones) to put a temporary link-local address on',
      );
    const address = randomLinkLocalAddress();
    const wasUp = await linkIsUp(platform, nic);
    const release = async () => {
      await platform.run(['ip', '-4', 'addr', 'del', address, 'dev', nic], { allowFailure: true, timeoutMs: 5000 });
      if (!wasUp)
        await platform.run(['ip', 'link', 'set', 'dev', nic, 'down'], { allowFailure: true, timeoutMs: 5000 });
    };
    const added = await platform.run(['ip', '-4', 'addr', 'add', address, 'dev', nic], {
      allowFailure: true,
      timeoutMs: 5000,
    });
    if (added.code !== 0)
      throw new EphemeralNetworkError(
        'ephemeral-link-local',
        `could not put the link-local address ${address} on ${nic}: ${added.stderr.trim() || `ip exited ${added.code}`}`,
      );
    const linked = await platform.run(['ip', 'link', 'set', 'dev', nic, 'up'], { allowFailure: true, timeoutMs: 5000 });
    if (linked.code !== 0) {
      await release();
      throw new EphemeralNetworkError(
        'ephemeral-link-local',
        `could not bring ${nic} up for its link-local address: ${linked.stderr.trim() || `ip exited ${linked.code}`}`,
      );
    }
    log.info(`temporary link-local address on ${nic}: ${address}`);
    return { interface: nic, release };
  }
}
