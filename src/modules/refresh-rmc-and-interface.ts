// cc_refresh_rmc_and_interface: on IBM PowerVM images with RSCT, keeps NetworkManager off the IPv6-only interfaces RMC
// talks over.
import { parseIpJsonAddr, type DeviceInfo } from '../net/ci-info/device-info';
import { ModuleError, type Module, type ModuleContext } from './module';
import { whichInTarget } from './support/distro-facts';

/** RSCT's control command; the module does nothing unless it is on the target's PATH (cloud-init's which). */
export const RMCCTRL = 'rmcctrl';

/** The ifcfg file of IFACE (the sysconfig layout, as 22.4 assumes on every distro). */
export function sysconfigPath(iface: string): string {
  return `/etc/sysconfig/network-scripts/ifcfg-${iface}`;
}

/** Lines 22.4 drops from an interface's ifcfg file before it appends NM_CONTROLLED=no. */
const DROPPED_PREFIXES = ['IPV6ADDR', 'IPADDR6', 'IPV6INIT', 'NM_CONTROLLED'];

/** Python's str.splitlines: every line break it knows, and no empty last line for a trailing break. */
function splitLines(text: string): string[] {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The devices `ip --json addr` lists (cloud-init's netinfo.netdev_info); none, with a warning, without ip. */
async function netdevInfo(ctx: ModuleContext): Promise<Map<string, DeviceInfo>> {
  if (!(await whichInTarget(ctx.platform, 'ip'))) {
    ctx.log.warn("Could not print networks: missing 'ip' and 'ifconfig' commands");
    return new Map();
  }
  const out = await ctx.platform.run(['ip', '--json', 'addr']);
  return parseIpJsonAddr(out.stdout);
}

/**
 * The interfaces with no IPv4 address: RMC reaches the hypervisor over IPv6 link-local. 22.4 logs that it skips
 * lo but does not (lo is left out only because it normally has 127.0.0.1), which is kept for parity.
 */
async function ipv6OnlyInterfaces(ctx: ModuleContext): Promise<string[]> {
  const ifaces: string[] = [];
  for (const [name, info] of await netdevInfo(ctx)) {
    if (name === 'lo') ctx.log.debug('Skipping localhost interface');
    if (info.ipv4.length !== 0) continue;
    ifaces.push(name);
  }
  return ifaces;
}

/**
 * Marks the interface's ifcfg file NM_CONTROLLED=no, dropping its IPv6 and NM_CONTROLLED lines, when it has IPV6INIT.
 */
async function disableIpv6(ctx: ModuleContext, file: string): Promise<void> {
  const contents = await ctx.platform.readTextIfExists(file);
  if (contents === undefined) {
    ctx.log.debug(`IPv6 interface file ${file} does not exist\n`);
    // 22.4 goes on to read the contents it never loaded, and the module fails (UnboundLocalError); so does kiln's.
    throw new ModuleError(
      'refresh_rmc_and_interface',
      `the IPv6 interface file ${file} does not exist, so NetworkManager cannot be kept off the interface`,
    );
  }
  if (!contents.includes('IPV6INIT')) {
    ctx.log.debug(`Interface file ${file} did not have IPV6INIT`);
    return;
  }
  ctx.log.debug(`Editing interface file ${file} `);
  const lines = splitLines(contents).filter((line) => !DROPPED_PREFIXES.some((p) => line.startsWith(p)));
  lines.push('NM_CONTROLLED=no');
  await ctx.platform.writeFile(file, `${lines.join('\n')}\n`);
}

export const refreshRmcAndInterfaceModule: Module = {
  name: 'refresh_rmc_and_interface',
  stage: 'final',
  frequency: 'always',
  distros: 'all',
  activateBy: [],
  async run(ctx): Promise<void> {
    if (!(await whichInTarget(ctx.platform, RMCCTRL))) {
      ctx.log.debug(`No '${RMCCTRL}' in path, disabled`);
      return;
    }
    ctx.log.debug(
      'Making the IPv6 up explicitly. Ensuring IPv6 interface is not being handled by NetworkManager and it is  restarted to re-establish the communication with the hypervisor',
    );
    const ifaces = await ipv6OnlyInterfaces(ctx);
    if (ifaces.length === 0) {
      ctx.log.debug('Did not find any interfaces with ipv6 addresses.');
      return;
    }
    for (const iface of ifaces) {
      // Down and up brings the IPv6 link-local address back, which RMC needs to reach the hypervisor.
      await ctx.platform.run(['ip', 'link', 'set', iface, 'down']);
      await ctx.platform.run(['ip', 'link', 'set', iface, 'up']);
      await disableIpv6(ctx, sysconfigPath(iface));
    }
    // 22.4 restarts NetworkManager here; it defines an RMC refresh (rmcctrl -z, -s) but never calls it.
    await ctx.platform.run(['systemctl', 'restart', 'NetworkManager']);
  },
};
