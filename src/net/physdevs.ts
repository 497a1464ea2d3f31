// The physical devices a network config names by MAC (cloud-init's extract_physdevs) and the ones the machine has
// (its get_interfaces, with what _get_current_rename_info adds): what the renames and the wait before applying use.
import type { Platform } from '../platform/platform';
import { NetworkConfigError } from './net-error';

/** One device a config names: [mac, name, driver, device id], as cloud-init's tuples. */
export interface Physdev {
  mac: string;
  name: string;
  driver?: string;
  deviceId?: string;
}

/** One interface of the machine, as cloud-init's rename info describes it. */
export interface CurrentInterface {
  name: string;
  /** Lower case. */
  mac: string;
  driver?: string;
  deviceId?: string;
  /** operstate up or unknown (the kernel's advice for configuration). */
  up: boolean;
  /** Down already, or holding no address a person gave it: taking it down to rename loses nothing. */
  downable: boolean;
}

const SYS = '/sys/class/net';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

async function sysRead(p: Platform, dev: string, attr: string): Promise<string | undefined> {
  try {
    return (await p.readTextIfExists(`${SYS}/${dev}/${attr}`))?.trim();
  } catch {
    return undefined; // some sysfs attributes refuse reads (EINVAL) while the link is down
  }
}

/** The kernel driver of DEV (its device's uevent DRIVER=, as the device/driver link names it). */
export async function deviceDriver(p: Platform, dev: string): Promise<string | undefined> {
  return /^DRIVER=(.+)$/m.exec((await sysRead(p, dev, 'device/uevent')) ?? '')?.[1];
}

/** The PCI device id of DEV, when it has a device. */
export async function deviceDevid(p: Platform, dev: string): Promise<string | undefined> {
  return (await sysRead(p, dev, 'device/device')) || undefined;
}

function str(v: unknown): string | undefined {
  return v === undefined || v === null || v === '' ? undefined : String(v);
}

/**
 * The devices CONFIG (a v1 or v2 network config, or one under a top-level `network:` key) asks to have a given
 * name: v1 `physical` entries with a `mac_address`, v2 ethernets with `set-name` and `match.macaddress`. A driver
 * or device id the config does not give is read from the device of that name, as cloud-init does.
 */
export async function extractPhysdevs(p: Platform, config: unknown): Promise<Physdev[]> {
  const cfg = isObj(config) && isObj(config.network) ? config.network : config;
  if (!isObj(cfg)) return [];
  const out: Physdev[] = [];
  const add = async (
    mac: string,
    name: string,
    driver: string | undefined,
    deviceId: string | undefined,
  ): Promise<void> => {
    const d: Physdev = { mac, name };
    const drv = driver ?? (await deviceDriver(p, name));
    const id = deviceId ?? (await deviceDevid(p, name));
    if (drv) d.driver = drv;
    if (id) d.deviceId = id;
    out.push(d);
  };
  if (Number(cfg.version) === 1) {
    for (const ent of Array.isArray(cfg.config) ? cfg.config : []) {
      if (!isObj(ent) || ent.type !== 'physical') continue;
      const mac = str(ent.mac_address);
      if (!mac) continue;
      const params = isObj(ent.params) ? ent.params : {};
      await add(mac, String(ent.name), str(params.driver), str(params.device_id));
    }
    return out;
  }
  if (Number(cfg.version) === 2) {
    for (const ent of Object.values(isObj(cfg.ethernets) ? cfg.ethernets : {})) {
      if (!isObj(ent)) continue;
      const name = str(ent['set-name']);
      const match = isObj(ent.match) ? ent.match : {};
      const mac = str(match.macaddress);
      // cloud-init renames only what a config asks to rename, and only by MAC.
      if (!name || !mac) continue;
      await add(mac, name, str(match.driver), str(match.device_id));
    }
    return out;
  }
  throw new NetworkConfigError('version', `Unknown network config version: ${String(cfg.version)}`);
}

/** The MAC an interface owns: a bond member's permanent one, else its address. */
async function interfaceMac(p: Platform, dev: string): Promise<string | undefined> {
  if (await p.exists(`${SYS}/${dev}/bonding_slave`)) return sysRead(p, dev, 'bonding_slave/perm_hwaddr');
  return sysRead(p, dev, 'address');
}

/**
 * The machine's interfaces that can carry a name of their own, as cloud-init's get_interfaces lists them: not a
 * bridge, VLAN or bond, not enslaved (except to a bridge or bond: netfailover's members have a master that is
 * neither), with a MAC of its own that is not all zeros (lo excepted).
 */
export async function currentInterfaces(p: Platform): Promise<Array<Omit<CurrentInterface, 'downable'>>> {
  let names: string[];
  try {
    names = await p.listDir(SYS);
  } catch {
    return []; // no sys/class/net under the root (a chroot without sysfs): no interfaces
  }
  const out: Array<Omit<CurrentInterface, 'downable'>> = [];
  for (const name of names) {
    const assign = await sysRead(p, name, 'addr_assign_type');
    // 2 is an address stolen from another device (a VLAN's, a bond's); no entry counts as its own.
    if (assign !== undefined && /^\d+$/.test(assign) && ![0, 1, 3].includes(Number(assign))) continue;
    const base = `${SYS}/${name}`;
    if ((await p.exists(`${base}/bridge`)) || (await p.exists(`${base}/bonding`))) continue;
    if (((await sysRead(p, name, 'uevent')) ?? '').split('\n').includes('DEVTYPE=vlan')) continue;
    if (
      (await p.exists(`${base}/master`)) &&
      !(await p.exists(`${base}/master/bonding`)) &&
      !(await p.exists(`${base}/master/bridge`))
    )
      continue;
    const mac = await interfaceMac(p, name);
    if (!mac) continue;
    if (name !== 'lo' && /^(00:)*00$/.test(mac)) continue;
    const iface: Omit<CurrentInterface, 'downable'> = {
      name,
      mac: mac.toLowerCase(),
      up: ['up', 'unknown'].includes((await sysRead(p, name, 'operstate')) ?? ''),
    };
    const driver = await deviceDriver(p, name);
    const deviceId = await deviceDevid(p, name);
    if (driver) iface.driver = driver;
    if (deviceId) iface.deviceId = deviceId;
    out.push(iface);
  }
  return out;
}

/**
 * The interfaces with what a rename must know: whether each is downable (down, or without an IPv4 address or a
 * permanent global IPv6 one, as `ip addr show` lists them).
 */
export async function currentRenameInfo(p: Platform): Promise<CurrentInterface[]> {
  const ifaces = await currentInterfaces(p);
  const withAddresses = new Set<string>();
  for (const argv of [
    ['ip', '-6', 'addr', 'show', 'permanent', 'scope', 'global'],
    ['ip', '-4', 'addr', 'show'],
  ]) {
    const r = await p.run(argv);
    for (const m of r.stdout.matchAll(/[0-9]+:\s+(\w+)[@:]/g)) withAddresses.add(m[1] as string);
  }
  return ifaces.map((i) => ({ ...i, downable: !i.up || !withAddresses.has(i.name) }));
}
