// cc_lxd: installs lxd and the storage backend's tools, waits for lxd, then `lxd init --preseed` or `lxd init --auto`,
// and sets up the bridge (debconf or `lxc network`).
import { readYaml } from '../config/read-yaml';
import { configModule } from './support/config-module';
import { OwnParser, readConfigValue } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';
import { RefusedSetting } from './support/refused-setting';
import { waitForSnapSeeded } from './support/snap-seeded';
import { ModuleError, type Module, type ModuleContext } from './module';
import { pyStr } from '../util/python-str';
import { pyTruthy as truthy } from '../util/python-truthy';
import { describeError } from '../util/errors';
import { pyTypeName } from '../util/python-type-name';

const MODULE = 'lxd';
const DEFAULT_NETWORK = 'lxdbr0';
/** The `lxd init --auto` options cloud-init passes, in its order, each as --key-with-dashes=value when set. */
const INIT_KEYS = [
  'network_address',
  'network_port',
  'storage_backend',
  'storage_create_device',
  'storage_create_loop',
  'storage_pool',
  'trust_password',
];

/** lxd.init as handle_init_cfg and get_required_packages read it (a mapping with keys). */
export interface LxdInit {
  /** `lxd init --auto`'s options in INIT_KEYS' order: each key set to a Python-true value, with its str(). */
  readonly options: readonly string[];
  /** storage_backend's str() when the key is there (null too): its driver; without it a failed init is a KeyError. */
  readonly storage_backend?: string;
}

/**
 * The keys of lxd.bridge that bridge_to_cmd and bridge_to_debconf read, each as given: upstream takes any type there
 * and only tests a value for truth, compares it with a string or writes its str().
 */
export interface LxdBridge {
  readonly mode?: unknown;
  readonly name?: unknown;
  readonly mtu?: unknown;
  readonly ipv4_address?: unknown;
  readonly ipv4_netmask?: unknown;
  readonly ipv4_dhcp_first?: unknown;
  readonly ipv4_dhcp_last?: unknown;
  readonly ipv4_dhcp_leases?: unknown;
  readonly ipv4_nat?: unknown;
  readonly ipv6_address?: unknown;
  readonly ipv6_netmask?: unknown;
  readonly ipv6_nat?: unknown;
  readonly domain?: unknown;
}

/** lxd as handle reads it: init and bridge when Python-true (lxd init and the bridge set-up run for them). */
export interface LxdSettings {
  readonly init?: LxdInit;
  readonly bridge?: LxdBridge;
  /** The preseed for `lxd init --preseed`, '' when none. */
  readonly preseed: string;
}

/** How the bridge is read: each key LxdBridge names as given, the others left out (upstream never reads them). */
const BRIDGE_READERS = {
  mode: 'as-is',
  name: 'as-is',
  mtu: 'as-is',
  ipv4_address: 'as-is',
  ipv4_netmask: 'as-is',
  ipv4_dhcp_first: 'as-is',
  ipv4_dhcp_last: 'as-is',
  ipv4_dhcp_leases: 'as-is',
  ipv4_nat: 'as-is',
  ipv6_address: 'as-is',
  ipv6_netmask: 'as-is',
  ipv6_nat: 'as-is',
  domain: 'as-is',
} as const satisfies { readonly [K in keyof LxdBridge]-?: 'as-is' };

/** lxd.init (a mapping with keys) as handle_init_cfg and get_required_packages read it. */
function readInit(init: { readonly [key: string]: unknown }): LxdInit {
  return {
    options: INIT_KEYS.filter((k) => truthy(init[k])).map((k) => `--${k.replace(/_/g, '-')}=${pyStr(init[k])}`),
    ...(Object.hasOwn(init, 'storage_backend')
      ? { storage_backend: readConfigValue('str', init.storage_backend) as string }
      : {}),
  };
}

/**
 * lxd as 25.1's handle reads it: a Python-false value skips the module and anything else but a mapping fails it;
 * supplemental_schema_validation's errors (init or bridge no mapping, preseed no string, preseed with either) are
 * kept to fail the module after the snap seed wait, where upstream's do.
 */
function readLxd(value: unknown): LxdSettings | RefusedSetting | undefined {
  if (!truthy(value)) return undefined;
  if (!isRecord(value))
    throw new ModuleError(MODULE, `lxd config must be a dictionary. found a '${pyTypeName(value)}'`);
  // dict.get(key, default): the default only for an absent key; a null one is None, which the checks refuse.
  const init = value.init === undefined ? {} : value.init;
  const preseed = value.preseed === undefined ? '' : value.preseed;
  const bridge = value.bridge === undefined ? {} : value.bridge;
  const errors: string[] = [];
  if (!isRecord(init)) errors.push(`lxd.init config must be a dictionary. found a '${pyTypeName(init)}'`);
  if (!isRecord(bridge)) errors.push(`lxd.bridge config must be a dictionary. found a '${pyTypeName(bridge)}'`);
  if (typeof preseed !== 'string') errors.push(`lxd.preseed config must be a string. found a '${pyTypeName(preseed)}'`);
  if (truthy(preseed) && (truthy(init) || truthy(bridge))) {
    const with_ = [...(truthy(init) ? ['lxd.init'] : []), ...(truthy(bridge) ? ['lxd.bridge'] : [])];
    errors.push(`Unable to configure LXD. lxd.preseed config can not be provided with key(s): ${with_.join(', ')}`);
  }
  if (errors.length > 0 || !isRecord(init) || !isRecord(bridge) || typeof preseed !== 'string')
    return new RefusedSetting(errors.join('. '));
  return {
    preseed,
    ...(truthy(init) ? { init: readInit(init) } : {}),
    ...(truthy(bridge) ? { bridge: readConfigValue(BRIDGE_READERS, bridge) as LxdBridge } : {}),
  };
}

/**
 * The packages cloud-init adds: lxd when missing, and the tool each requested storage driver needs (zfs, lvcreate,
 * mkfs.btrfs).
 */
export async function requiredPackages(
  ctx: ModuleContext,
  init: LxdInit | undefined,
  preseed: string,
): Promise<string[]> {
  const packages: string[] = [];
  const drivers: unknown[] = [];
  if (init?.storage_backend !== undefined) drivers.push(init.storage_backend);
  if (preseed.includes('storage_pools')) {
    let parsed: unknown;
    try {
      parsed = readYaml(preseed, 'lxd.preseed');
    } catch {
      // readYaml fails only on text that is not YAML: cloud-init's warning for it
      ctx.log.warn(
        'lxd.preseed string value is not YAML.  Unable to determine required storage driver packages to support storage_pools config.',
      );
    }
    const pools = isRecord(parsed) && Array.isArray(parsed.storage_pools) ? parsed.storage_pools : [];
    for (const pool of pools) if (isRecord(pool) && pool.driver) drivers.push(pool.driver);
  }
  if (drivers.includes('zfs') && !(await whichInTarget(ctx.platform, 'zfs'))) packages.push('zfsutils-linux');
  if (drivers.includes('lvm') && !(await whichInTarget(ctx.platform, 'lvcreate'))) packages.push('lvm2');
  if (drivers.includes('btrfs') && !(await whichInTarget(ctx.platform, 'mkfs.btrfs'))) packages.push('btrfs-progs');
  return packages;
}

/** The `lxc network create` and `lxc network attach-profile` arguments for the built-in bridge (none for mode none). */
export function bridgeCommands(bridge: LxdBridge): { create?: string[]; attach?: string[] } {
  if (bridge.mode === 'none') return {};
  const name = bridge.name === undefined ? DEFAULT_NETWORK : pyStr(bridge.name);
  const attach = ['network', 'attach-profile', name, 'default', 'eth0'];
  if (bridge.mode === 'existing') return { attach };
  if (bridge.mode !== 'new')
    throw new ModuleError(MODULE, `invalid bridge mode "${bridge.mode === undefined ? 'None' : pyStr(bridge.mode)}"`);
  const create = ['network', 'create', name];
  if (truthy(bridge.ipv4_address) && truthy(bridge.ipv4_netmask)) {
    create.push(`ipv4.address=${pyStr(bridge.ipv4_address)}/${pyStr(bridge.ipv4_netmask)}`);
    // cloud-init compares with the string 'true' (the schema's boolean true never matches).
    if ((bridge.ipv4_nat ?? 'true') === 'true') create.push('ipv4.nat=true');
    if (truthy(bridge.ipv4_dhcp_first) && truthy(bridge.ipv4_dhcp_last))
      create.push(`ipv4.dhcp.ranges=${pyStr(bridge.ipv4_dhcp_first)}-${pyStr(bridge.ipv4_dhcp_last)}`);
  } else {
    create.push('ipv4.address=none');
  }
  if (truthy(bridge.ipv6_address) && truthy(bridge.ipv6_netmask)) {
    create.push(`ipv6.address=${pyStr(bridge.ipv6_address)}/${pyStr(bridge.ipv6_netmask)}`);
    if ((bridge.ipv6_nat ?? 'false') === 'true') create.push('ipv6.nat=true');
  } else {
    create.push('ipv6.address=none');
  }
  if (truthy(bridge.domain)) create.push(`dns.domain=${pyStr(bridge.domain)}`);
  const mtu = bridge.mtu ?? -1;
  if (mtu !== -1) create.push(`bridge.mtu=${pyStr(mtu)}`);
  return { create, attach };
}

/**
 * The lxd package's debconf answers for the bridge (used when /etc/default/lxd-bridge and debconf-communicate exist).
 */
export function bridgeDebconf(bridge: LxdBridge): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const set = (k: string, v: unknown) => out.push([`lxd/${k}`, v === undefined || v === null ? 'None' : pyStr(v)]);
  if (bridge.mode === 'none') {
    set('setup-bridge', 'false');
    set('bridge-name', '');
  } else if (bridge.mode === 'existing') {
    set('setup-bridge', 'false');
    set('use-existing-bridge', 'true');
    set('bridge-name', bridge.name);
  } else if (bridge.mode === 'new') {
    set('setup-bridge', 'true');
    if (truthy(bridge.name)) set('bridge-name', bridge.name);
    if (truthy(bridge.ipv4_address)) {
      set('bridge-ipv4', 'true');
      set('bridge-ipv4-address', bridge.ipv4_address);
      set('bridge-ipv4-netmask', bridge.ipv4_netmask);
      set('bridge-ipv4-dhcp-first', bridge.ipv4_dhcp_first);
      set('bridge-ipv4-dhcp-last', bridge.ipv4_dhcp_last);
      set('bridge-ipv4-dhcp-leases', bridge.ipv4_dhcp_leases);
      set('bridge-ipv4-nat', bridge.ipv4_nat ?? 'true');
    }
    if (truthy(bridge.ipv6_address)) {
      set('bridge-ipv6', 'true');
      set('bridge-ipv6-address', bridge.ipv6_address);
      set('bridge-ipv6-netmask', bridge.ipv6_netmask);
      set('bridge-ipv6-nat', bridge.ipv6_nat ?? 'false');
    }
    if (truthy(bridge.domain)) set('bridge-domain', bridge.domain);
  } else {
    throw new ModuleError(MODULE, `invalid bridge mode "${bridge.mode === undefined ? 'None' : pyStr(bridge.mode)}"`);
  }
  return out;
}

async function mustRun(
  ctx: ModuleContext,
  argv: string[],
  opts: { input?: string; env?: Record<string, string> } = {},
): Promise<void> {
  const r = await ctx.platform.run(argv, { ...opts, allowFailure: true });
  if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
  if (r.code !== 0)
    throw new ModuleError(
      MODULE,
      `'${argv.join(' ')}' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`,
    );
}

/** `lxc … --force-local` with the environment cloud-init gives it; resolves with the exit code. */
async function lxc(ctx: ModuleContext, args: string[]): Promise<number> {
  const argv = ['lxc', ...args, '--force-local'];
  const env = { LC_ALL: 'C', HOME: process.env.HOME ?? '/root', USER: process.env.USER ?? 'root' };
  const r = await ctx.platform.run(argv, { env, allowFailure: true });
  if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
  return r.code;
}

async function mustLxc(ctx: ModuleContext, args: string[]): Promise<void> {
  const code = await lxc(ctx, args);
  if (code !== 0) throw new ModuleError(MODULE, `'lxc ${args.join(' ')} --force-local' exited with code ${code}`);
}

/**
 * Newer lxd makes lxdbr0 on `lxd init --auto`: cloud-init removes it (and eth0 from the default profile) before
 * making its own; exit code 1 means it was not there.
 */
async function cleanupDefault(
  ctx: ModuleContext,
  net: string,
  didInit: boolean,
  create: boolean,
  attach: boolean,
): Promise<void> {
  if (net !== DEFAULT_NETWORK || !didInit) return;
  if (create) {
    const code = await lxc(ctx, ['network', 'detach-profile', net, 'default']);
    if (code === 0) await mustLxc(ctx, ['network', 'delete', net]);
    else if (code !== 1)
      throw new ModuleError(
        MODULE,
        `'lxc network detach-profile ${net} default --force-local' exited with code ${code}`,
      );
  }
  if (attach) {
    const code = await lxc(ctx, ['profile', 'device', 'remove', 'default', 'eth0']);
    if (code !== 0 && code !== 1)
      throw new ModuleError(MODULE, `'lxc profile device remove default eth0 --force-local' exited with code ${code}`);
  }
}

export const lxdModule: Module = configModule({
  name: 'lxd',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: ['ubuntu'],
  activateBy: ['lxd'],
  // 25.1's module takes what its schema rejects: bridge.ipv4_nat "true" (a string) and init and bridge values of any
  // type (str()'d), a bridge without mode (its own 'invalid bridge mode' error), its own checks' words.
  configKeys: { lxd: new OwnParser(readLxd) },
  async run(ctx, cfg): Promise<void> {
    const lxd = cfg.lxd;
    if (lxd === undefined) {
      ctx.log.debug('Skipping module named lxd, not present or disabled by cfg');
      return;
    }
    await waitForSnapSeeded(ctx);
    if (lxd instanceof RefusedSetting) throw new ModuleError(MODULE, lxd.message);
    const { init, bridge, preseed } = lxd;

    // 25.1: lxd comes from the snap when the image has none (the failure ends the module).
    if (!(await whichInTarget(ctx.platform, 'lxd'))) {
      const r = await ctx.platform.run(['snap', 'install', 'lxd'], { allowFailure: true });
      if (r.code !== 0) {
        const why =
          r.code === 127 || r.code < 0 ? 'snap: command not found' : `'snap install lxd' exited with code ${r.code}`;
        throw new ModuleError(
          MODULE,
          `Failed to install lxd from snap: ${why}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`,
        );
      }
    }

    const packages = await requiredPackages(ctx, init, preseed);
    if (packages.length > 0) {
      try {
        await installPackages(ctx, MODULE, packages);
      } catch (err) {
        // As cloud-init: a failed install is a warning and the module stops there without failing.
        ctx.log.warn(`failed to install packages ${JSON.stringify(packages)}: ${describeError(err)}`);
        return;
      }
    }

    await mustRun(ctx, ['lxd', 'waitready', '--timeout=300']);
    if (preseed) {
      await mustRun(ctx, ['lxd', 'init', '--preseed'], { input: preseed });
      return;
    }

    if (init) {
      // 25.1's handle_init_cfg: lxd init first; only when it fails with the lvm backend (LP #1982780: no thin
      // pool on a minimal image) is the pool made without a thin pool and init run again without the backend.
      const argv = ['lxd', 'init', '--auto', ...init.options];
      const first = await ctx.platform.run(argv, { allowFailure: true });
      if (first.stdout || first.stderr) await ctx.output(first.stdout + first.stderr);
      if (first.code !== 0) {
        // cloud-init reads storage_backend without a default here: a failed init without one is a KeyError.
        if (init.storage_backend === undefined)
          throw Object.assign(new ModuleError(MODULE, "'storage_backend'"), { pythonName: 'KeyError' });
        if (init.storage_backend !== 'lvm')
          throw new ModuleError(
            MODULE,
            `'${argv.join(' ')}' exited with code ${first.code}${first.stderr.trim() ? `: ${first.stderr.trim()}` : ''}`,
          );
        ctx.log.info(
          "Cloud-init doesn't use thinpool by default on Ubuntu due to LP #1982780. This behavior will change in the future.",
        );
        await mustRun(ctx, ['lxc', 'storage', 'create', 'default', 'lvm', 'lvm.use_thinpool=false']);
        await mustRun(
          ctx,
          argv.filter((a) => !a.startsWith('--storage-backend')),
        );
      }
    }

    if (!bridge) return;
    const net = bridge.name === undefined ? DEFAULT_NETWORK : pyStr(bridge.name);
    if (
      (await ctx.platform.exists('/etc/default/lxd-bridge')) &&
      (await whichInTarget(ctx.platform, 'debconf-communicate'))
    ) {
      // The lxd package of old Ubuntu releases sets its bridge up from debconf answers.
      const answers = bridgeDebconf(bridge);
      ctx.log.debug('Setting lxd debconf via debconf-communicate');
      const data = `${answers.map(([k, v]) => `set ${k} ${v}`).join('\n')}\n`;
      const r = await ctx.platform.run(['debconf-communicate'], { input: data, allowFailure: true });
      if (r.code !== 0) ctx.log.warn(`Failed to run 'debconf-communicate' for lxd with exit code ${r.code}`);
      await ctx.platform.remove('/etc/default/lxd-bridge');
      ctx.log.debug('Running dpkg-reconfigure for lxd');
      await mustRun(ctx, ['dpkg-reconfigure', 'lxd', '--frontend=noninteractive']);
      return;
    }
    const { create, attach } = bridgeCommands(bridge);
    await cleanupDefault(ctx, net, init !== undefined, Boolean(create), Boolean(attach));
    if (create) {
      ctx.log.debug(`Creating lxd bridge: ${create.join(' ')}`);
      await mustLxc(ctx, create);
    }
    if (attach) {
      ctx.log.debug(`Setting up default lxd bridge: ${attach.join(' ')}`);
      await mustLxc(ctx, attach);
    }
  },
});
