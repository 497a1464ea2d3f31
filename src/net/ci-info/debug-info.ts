// The `ci-info:` tables cloud-init prints when its network stage starts (netinfo.debug_info): the devices with their
// addresses, then the IPv4 and IPv6 routes, from the target's `ip`, in cloud-init's exact layout.
import type { Platform } from '../../platform/platform';
import type { Log } from '../../util/log';
import { parseIpJsonAddr, type DeviceInfo } from './device-info';
import { pyFormatCenter } from './python-text';
import { parseIpv4Routes, parseIpv6Routes, type RouteInfo } from './route-info';
import { SimpleTable } from './simple-table';

const EMPTY = '.';
/** Where cloud-init's subp.which looks for `ip` at boot (systemd's PATH). */
const PATH_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

const pyBool = (b: boolean) => (b ? 'True' : 'False');
const orEmpty = (s: string | undefined) => (s === undefined || s === '' ? EMPTY : s);

/** The header rule: TITLE centred in '+' over the table's longest line. */
function titled(title: string, table: string): string[] {
  const width = Math.max(...table.split('\n').map((l) => l.length));
  return [pyFormatCenter(title, '+', width), table];
}

/** netdev_pformat: one row per address (IPv4 first), one bare row for a device without any; devices by name. */
export function formatDeviceTable(devs: Map<string, DeviceInfo> | Error): string {
  if (devs instanceof Error) return `${pyFormatCenter(`Net device info failed (${devs.message})`, '!', 80)}\n`;
  if (devs.size === 0) return '\n';
  const tbl = new SimpleTable(['Device', 'Up', 'Address', 'Mask', 'Scope', 'Hw-Address']);
  const names = [...devs.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const dev of names) {
    const d = devs.get(dev) as DeviceInfo;
    const hw = orEmpty(d.hwaddr);
    for (const a of d.ipv4) tbl.addRow([dev, pyBool(d.up), orEmpty(a.ip), orEmpty(a.mask), orEmpty(a.scope), hw]);
    for (const a of d.ipv6) tbl.addRow([dev, pyBool(d.up), orEmpty(a.ip), EMPTY, orEmpty(a.scope6), hw]);
    if (d.ipv4.length + d.ipv6.length === 0) tbl.addRow([dev, pyBool(d.up), EMPTY, EMPTY, EMPTY, hw]);
  }
  return `${titled('Net device info', tbl.toString()).join('\n')}\n`;
}

/** A key cloud-init's table reads that the route lacks fails the whole table, as Python's KeyError does. */
function field(r: Record<string, string | undefined>, key: string): string {
  const v = r[key];
  if (v === undefined) throw new RangeError(`'${key}'`);
  return v;
}

/** route_pformat: the IPv4 table, then the IPv6 one without loopback rows (their numbers are still counted). */
export function formatRouteTables(routes: RouteInfo | Error, log?: Log): string {
  const failed = (e: Error) => {
    log?.warn(`Route info failed: ${e.message}`);
    return `${pyFormatCenter(`Route info failed (${e.message})`, '!', 80)}\n`;
  };
  if (routes instanceof Error) return failed(routes);
  const lines: string[] = [];
  try {
    if (routes.ipv4.length) {
      const tbl = new SimpleTable(['Route', 'Destination', 'Gateway', 'Genmask', 'Interface', 'Flags']);
      for (const [n, r] of routes.ipv4.entries())
        tbl.addRow([
          String(n),
          field(r, 'destination'),
          field(r, 'gateway'),
          field(r, 'genmask'),
          field(r, 'iface'),
          field(r, 'flags'),
        ]);
      lines.push(...titled('Route IPv4 info', tbl.toString()));
    }
    if (routes.ipv6.length) {
      const tbl = new SimpleTable(['Route', 'Destination', 'Gateway', 'Interface', 'Flags']);
      routes.ipv6.forEach((r, n) => {
        if (field(r, 'iface') === 'lo') return;
        tbl.addRow([String(n), field(r, 'destination'), field(r, 'gateway'), field(r, 'iface'), field(r, 'flags')]);
      });
      lines.push(...titled('Route IPv6 info', tbl.toString()));
    }
  } catch (err) {
    return failed(err as Error);
  }
  return `${lines.join('\n')}\n`;
}

async function hasIp(p: Platform): Promise<boolean> {
  for (const d of PATH_DIRS) if (await p.exists(`${d}/ip`)) return true;
  return false;
}

async function ip(p: Platform, argv: string[], okCodes: number[] = [0]): Promise<string> {
  const r = await p.run(['ip', ...argv], { allowFailure: true, timeoutMs: 30_000 });
  if (!okCodes.includes(r.code))
    throw new Error(`'ip ${argv.join(' ')}' failed (exit code ${r.code}): ${r.stderr.trim()}`);
  return r.stdout;
}

async function readDevices(p: Platform): Promise<Map<string, DeviceInfo> | Error> {
  try {
    return parseIpJsonAddr(await ip(p, ['--json', 'addr']));
  } catch (err) {
    return err as Error;
  }
}

async function readRoutes(p: Platform): Promise<RouteInfo | Error> {
  let ipv4: RouteInfo['ipv4'];
  try {
    ipv4 = parseIpv4Routes(await ip(p, ['-o', 'route', 'list']));
  } catch (err) {
    return err as Error;
  }
  let ipv6: RouteInfo['ipv6'] = [];
  try {
    ipv6 = parseIpv6Routes(await ip(p, ['--oneline', '-6', 'route', 'list', 'table', 'all'], [0, 1]));
  } catch (err) {
    if (err instanceof RangeError) return err;
    // cloud-init goes on without IPv6 routes when the command fails.
  }
  return { ipv4, ipv6 };
}

/** The lines cloud-init writes to the console at the start of the network stage, each prefixed `ci-info: `. */
export async function networkDebugInfo(p: Platform, log: Log): Promise<string> {
  if (!(await hasIp(p))) {
    log.warn("Could not print networks: missing 'ip' and 'ifconfig' commands");
    log.warn("Could not print routes: missing 'ip' and 'netstat' commands");
    return ['ci-info: ', 'ci-info: '].join('\n');
  }
  const text = formatDeviceTable(await readDevices(p)) + formatRouteTables(await readRoutes(p), log);
  return text
    .split('\n')
    .slice(0, -1)
    .map((l) => `ci-info: ${l}`)
    .join('\n');
}
