// Short-lived networking for sources read before the network is configured (cloud-init's ephemeral DHCP), through the platform.
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';
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

/** Picks the interface cloud-init's fallback would: the first non-virtual NIC, preferring eth0. */
export async function fallbackInterface(platform: Platform): Promise<string | undefined> {
  let names: string[];
  try {
    names = await platform.listDir('/sys/class/net');
  } catch {
    return undefined;
  }
  const real = names.filter((n) => n !== 'lo' && !/^(docker|veth|virbr|br-|tun|tap|wg)/.test(n));
  return real.includes('eth0') ? 'eth0' : real[0];
}

/**
 * DHCP with dhclient (one shot, no script side effects beyond the interface) or busybox udhcpc. The lease
 * is dropped with `dhclient -r` / by stopping udhcpc and flushing the address, as cloud-init does.
 */
export class LinuxEphemeralDhcp implements EphemeralNetwork {
  constructor(private readonly opts: LinuxDhcpOptions) {}

  async up(): Promise<EphemeralLease> {
    const { platform, log } = this.opts;
    const nic = this.opts.interface ?? (await fallbackInterface(platform));
    if (!nic) throw new SourceError('ephemeral-dhcp', 'no network interface found under /sys/class/net to bring up a temporary DHCP lease on');
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    const pidFile = `/run/kiln-ephemeral-dhcp.${nic}.pid`;
    const leaseFile = `/run/kiln-ephemeral-dhcp.${nic}.lease`;
    await platform.run(['ip', 'link', 'set', 'dev', nic, 'up'], { allowFailure: true, timeoutMs: 5000 });
    const hasDhclient = (await platform.run(['sh', '-c', 'command -v dhclient'], { allowFailure: true })).code === 0;
    if (hasDhclient) {
      log.debug(`bringing up a temporary DHCP lease on ${nic} with dhclient`);
      const r = await platform.run(['dhclient', '-1', '-v', '-pf', pidFile, '-lf', leaseFile, nic], { allowFailure: true, timeoutMs });
      if (r.code !== 0) throw new SourceError('ephemeral-dhcp', `dhclient got no lease on ${nic} (exit ${r.code}): ${r.stderr.trim().split('\n').pop() ?? ''}`);
      return {
        interface: nic,
        release: async () => {
          await platform.run(['dhclient', '-r', '-pf', pidFile, '-lf', leaseFile, nic], { allowFailure: true, timeoutMs: 10_000 });
          await platform.run(['ip', 'addr', 'flush', 'dev', nic], { allowFailure: true, timeoutMs: 5000 });
          await platform.remove(leaseFile);
        },
      };
    }
    log.debug(`bringing up a temporary DHCP lease on ${nic} with udhcpc`);
    const r = await platform.run(['udhcpc', '-i', nic, '-n', '-q', '-t', '5', '-p', pidFile], { allowFailure: true, timeoutMs });
    if (r.code !== 0) throw new SourceError('ephemeral-dhcp', `neither dhclient nor udhcpc got a lease on ${nic} (udhcpc exit ${r.code})`);
    return {
      interface: nic,
      release: async () => {
        await platform.run(['ip', 'addr', 'flush', 'dev', nic], { allowFailure: true, timeoutMs: 5000 });
        await platform.remove(pidFile);
      },
    };
  }
}
