// The fallback network config: DHCP on the NIC most likely connected, chosen by cloud-init's rules.
import type { NicFacts } from './sys-class-net';

const DEFAULT_PRIMARY = 'eth0';

function naturalKey(s: string): Array<string | number> {
  return s
    .split(/(\d+)/)
    .filter((x, i) => x !== '' || i === 0)
    .map((x) => (/^\d+$/.test(x) ? Number(x) : x.toLowerCase()));
}

export function naturalCompare(a: string, b: string): number {
  const ka = naturalKey(a);
  const kb = naturalKey(b);
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    const x = ka[i] as string | number;
    const y = kb[i] as string | number;
    if (x === y) continue;
    if (typeof x === typeof y) return x < y ? -1 : 1;
    return typeof x === 'number' ? -1 : 1;
  }
  return ka.length - kb.length;
}

function isNetfailover(n: NicFacts): boolean {
  if (!n.hasMaster) return false;
  const primary = n.driver !== 'virtio_net' && n.masterDriver === 'virtio_net';
  const standby = n.driver === 'virtio_net' && n.standbyFeature;
  return primary || standby;
}

/** Candidate NICs in cloud-init's order: connected first (eth0 leading), then possibly connected. */
export function candidateNics(nics: NicFacts[], blacklistDrivers: string[] = []): string[] {
  const connected: string[] = [];
  const possibly: string[] = [];
  for (const n of nics) {
    if (n.name === 'lo') continue;
    if (n.driver && blacklistDrivers.includes(n.driver)) continue;
    if (!n.mac) continue;
    if (n.name.startsWith('veth') || n.isBridge || n.isBond || isNetfailover(n)) continue;
    if (n.carrier) connected.push(n.name);
    else if (n.dormant) possibly.push(n.name);
    else if (['dormant', 'down', 'lowerlayerdown', 'unknown'].includes(n.operstate ?? '')) possibly.push(n.name);
  }
  const out: string[] = [];
  for (const group of [connected, possibly]) {
    group.sort(naturalCompare);
    const i = group.indexOf(DEFAULT_PRIMARY);
    if (i > 0) group.unshift(...group.splice(i, 1));
    out.push(...group);
  }
  return out;
}

/**
 * The v2 fallback config, or undefined when no NIC qualifies: DHCPv4 on it. cloud-init 25.1 (24.1 on) asks for DHCPv6
 * too; kiln does not, on purpose (docs/network.md, "Where kiln differs from cloud-init 25.1 on purpose").
 */
export function fallbackNetworkConfig(
  nics: NicFacts[],
  opts: { blacklistDrivers?: string[]; matchDriver?: boolean } = {},
): Record<string, unknown> | undefined {
  const name = candidateNics(nics, opts.blacklistDrivers)[0];
  if (!name) return undefined;
  const nic = nics.find((n) => n.name === name) as NicFacts;
  const netfailMaster = !nic.hasMaster && nic.driver === 'virtio_net' && nic.standbyFeature;
  const match: Record<string, string> = netfailMaster ? { name } : { macaddress: nic.mac as string };
  if (opts.matchDriver && nic.driver) match.driver = nic.driver;
  return { ethernets: { [name]: { dhcp4: true, 'set-name': name, match } }, version: 2 };
}
