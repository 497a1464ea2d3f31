// Reads /sys/class/net under the platform root: the facts the fallback and MAC lookups need, nothing more.
import type { Platform } from '../platform/platform';

export interface NicFacts {
  name: string;
  /** Lower-case MAC, when the device has one. */
  mac?: string;
  driver?: string;
  carrier?: number;
  dormant?: number;
  operstate?: string;
  isBridge: boolean;
  isBond: boolean;
  /** Has a `master` link (enslaved to a bond, bridge or netfailover master). */
  hasMaster: boolean;
  /** The virtio `standby` feature bit (netfailover). */
  standbyFeature: boolean;
  /** The `driver` of the device's master, for netfailover primaries. */
  masterDriver?: string;
}

const SYS = '/sys/class/net';

async function read(p: Platform, path: string): Promise<string | undefined> {
  try {
    return (await p.readTextIfExists(path))?.trim();
  } catch {
    return undefined; // some sysfs attributes refuse reads (EINVAL) when the link is down
  }
}

function int(s: string | undefined): number | undefined {
  return s !== undefined && /^-?\d+$/.test(s) ? Number(s) : undefined;
}

async function driverOf(p: Platform, dev: string): Promise<string | undefined> {
  const uevent = await read(p, `${SYS}/${dev}/device/uevent`);
  return /^DRIVER=(.+)$/m.exec(uevent ?? '')?.[1];
}

/** The facts of every interface under /sys/class/net in the platform's root, in directory order. */
export async function readSysClassNet(p: Platform): Promise<NicFacts[]> {
  let names: string[];
  try {
    names = await p.listDir(SYS);
  } catch {
    return []; // no sys/class/net under the root (a chroot without sysfs): no interfaces
  }
  const out: NicFacts[] = [];
  for (const name of names) {
    const base = `${SYS}/${name}`;
    const mac = await read(p, `${base}/address`);
    const masterUevent = await read(p, `${base}/master/uevent`);
    const masterName = /^INTERFACE=(.+)$/m.exec(masterUevent ?? '')?.[1];
    const features = (await read(p, `${base}/device/features`)) ?? '';
    const facts: NicFacts = {
      name,
      isBridge: await p.exists(`${base}/bridge`),
      isBond: await p.exists(`${base}/bonding`),
      hasMaster: await p.exists(`${base}/master`),
      standbyFeature: features.length >= 64 && features[62] === '1',
    };
    if (mac) facts.mac = mac.toLowerCase();
    const driver = await driverOf(p, name);
    if (driver) facts.driver = driver;
    const carrier = int(await read(p, `${base}/carrier`));
    if (carrier !== undefined) facts.carrier = carrier;
    const dormant = int(await read(p, `${base}/dormant`));
    if (dormant !== undefined) facts.dormant = dormant;
    const operstate = await read(p, `${base}/operstate`);
    if (operstate) facts.operstate = operstate;
    if (masterName) {
      const md = await driverOf(p, masterName);
      if (md) facts.masterDriver = md;
    }
    out.push(facts);
  }
  return out;
}

/** MAC → interface name, for naming OpenStack links, EC2 NICs and v2 matches. */
export function macsToNames(nics: NicFacts[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const n of nics) if (n.mac && n.name !== 'lo' && !n.isBond && !n.isBridge && !m.has(n.mac)) m.set(n.mac, n.name);
  return m;
}
