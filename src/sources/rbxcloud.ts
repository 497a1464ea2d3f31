// RbxCloud (Rootbox / HyperOne): a FAT filesystem labelled CLOUDMD/cloudmd with cloud.json and user.data, read
// as cloud-init's DataSourceRbxCloud reads it, and the gratuitous ARP it sends once the data is consumed.
import { isUtf8 } from 'node:buffer';
import type { ActivateContext, CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { SourceError } from './source-error';
import { describeError } from '../util/errors';

const NAME = 'RbxCloud';
export const RBXCLOUD_LABELS = ['CLOUDMD', 'cloudmd'];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A key cloud.json must have: cloud-init fails on its absence with a KeyError, kiln names the path. */
function need(o: unknown, key: string, where: string): unknown {
  if (!isObj(o) || !(key in o)) throw new SourceError(NAME, `cloud.json: ${where}.${key} is missing`);
  return o[key];
}

function list(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) throw new SourceError(NAME, `cloud.json: ${where} must be a list`);
  return v;
}

/** One IPv4 address N further on (cloud-init's increment_ip). */
function ipPlus(addr: string, n: number): string {
  const parts = addr.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
    throw new SourceError(NAME, `cloud.json: gateway '${addr}' is not an IPv4 address`);
  const v = (parts.reduce((a, p) => a * 256 + p, 0) + n) >>> 0;
  return [24, 16, 8, 0].map((s) => (v >>> s) & 0xff).join('.');
}

export interface ArpPair {
  source: string;
  destination: string;
}

/** cloud-init's generate_network_config: one v1 physical NIC (eth<i>) per netadp, a static subnet per address. */
export function rbxNetworkConfig(netadps: unknown[]): Obj {
  return {
    version: 1,
    config: netadps.map((n, i) => {
      const where = `netadp[${i}]`;
      const network = need(n, 'network', where);
      const mac = need(n, 'macaddress', where);
      if (typeof mac !== 'string') throw new SourceError(NAME, `cloud.json: ${where}.macaddress must be a string`);
      return {
        type: 'physical',
        name: `eth${i}`,
        mac_address: mac.toLowerCase(),
        subnets: list(need(n, 'ip', where), `${where}.ip`).map((ip, j) => ({
          type: 'static',
          address: need(ip, 'address', `${where}.ip[${j}]`),
          netmask: need(network, 'netmask', `${where}.network`),
          control: 'auto',
          gateway: need(network, 'gateway', `${where}.network`),
          dns_nameservers: need(need(network, 'dns', `${where}.network`), 'nameservers', `${where}.network.dns`),
        })),
      };
    }),
  };
}

/**
 * The gratuitous ARP announcements cloud-init sends: each address of each NIC to its gateway and the gateway's
 * +2 and +3 neighbours (get_three_ips), read back from the v1 config made of cloud.json (so a cached instance has
 * them).
 */
export function rbxArpPairs(network: unknown): ArpPair[] {
  const nics = isObj(network) && Array.isArray(network.config) ? network.config : [];
  return nics.flatMap((n: unknown) =>
    (isObj(n) && Array.isArray(n.subnets) ? n.subnets : []).flatMap((s: unknown) => {
      if (!isObj(s) || typeof s.address !== 'string' || typeof s.gateway !== 'string') return [];
      const gw = s.gateway;
      return [gw, ipPlus(gw, 2), ipPlus(gw, 3)].map((destination) => ({ source: s.address as string, destination }));
    }),
  );
}

async function readDrive(
  ctx: CrawlContext,
  device: string,
  tree: { readFile(p: string): Promise<Uint8Array | undefined> },
): Promise<InstanceData | undefined> {
  const raw = await tree.readFile('cloud.json');
  if (!raw) return undefined; // cloud-init: ENOENT on cloud.json, the next device
  let md: unknown;
  try {
    md = JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch (err) {
    throw new SourceError(NAME, `${device}: cloud.json is not JSON: ${describeError(err)}`);
  }
  if (!isObj(md)) throw new SourceError(NAME, `${device}: cloud.json must be a JSON object`);
  if (!('vm' in md) || !('netadp' in md)) {
    ctx.log.warn(`RbxCloud: ${device}: failed to load metadata. Invalid format (cloud.json lacks 'vm' or 'netadp')`);
    return undefined;
  }
  const netadps = list(md.netadp, 'netadp');
  const extra = isObj(md.additionalMetadata) ? md.additionalMetadata : {};
  const username = extra.username;
  const sshKeys = extra.sshKeys ?? [];
  const password = isObj(extra.password) ? extra.password.sha512 : undefined;
  const network = rbxNetworkConfig(netadps);
  rbxArpPairs(network); // cloud-init works these out while reading: a gateway that is not IPv4 fails the read
  const instanceId = need(md.vm, '_id', 'vm');
  const hostname = need(md.vm, 'name', 'vm');
  // null where cloud.json gives no username or password, as cloud-init writes them: over the system's default user a
  // null name leaves the instance without one (cloud-init 22.4 and later merge it so; users-config then finds no name).
  const defaultUser: Obj = {
    name: username ?? null,
    gecos: username ?? null,
    sudo: ['ALL=(ALL) NOPASSWD:ALL'],
    passwd: password ?? null,
    lock_passwd: false,
    ssh_authorized_keys: sshKeys,
  };
  const etcHosts = await ctx.platform.readTextIfExists('/etc/hosts').catch(() => undefined);
  const userData = await tree.readFile('user.data');
  // cloud-init reads user.data as text: bytes that are not UTF-8 fail the whole read (its UnicodeDecodeError).
  if (userData && !isUtf8(userData)) throw new SourceError(NAME, `${device}: user.data is not UTF-8 text`);
  const data: InstanceData = {
    instanceId: String(instanceId),
    cloudName: 'rbxcloud',
    platform: 'rbxcloud',
    subplatform: 'unknown', // DataSourceRbxCloud names none
    localHostname: String(hostname),
    publicKeys: [],
    metadata: { 'instance-id': instanceId, 'local-hostname': hostname, 'public-keys': [] },
    networkConfig: { format: 'v1', config: network },
    sourceConfig: {
      ssh_pwauth: true,
      disable_root: true,
      system_info: { default_user: defaultUser },
      network_config: network,
      // cloud-init manages /etc/hosts only when it is missing or empty.
      manage_etc_hosts: !etcHosts,
    },
  };
  // cloud-init reads user.data quietly: an absent file is empty user data.
  data.userData = userData ?? new Uint8Array(0);
  return data;
}

export const rbxCloudSource: Datasource = {
  name: NAME,
  kind: 'local',
  /** cloud-init's __str__ prints a seed it never sets. */
  describe: (_data, cls) => `${cls} [seed=None]`,
  async detect(ctx: DetectContext) {
    return (await ctx.finder.find({ labels: RBXCLOUD_LABELS })).some((f) => RBXCLOUD_LABELS.includes(f.label));
  },
  async crawl(ctx) {
    // cloud-init mounts them as vfat only.
    const drives = (await ctx.finder.find({ labels: RBXCLOUD_LABELS, fsTypes: ['vfat'] })).filter((f) =>
      RBXCLOUD_LABELS.includes(f.label),
    );
    for (const d of drives) {
      const data = await readDrive(ctx, d.device, d.tree);
      if (data) return data;
    }
    throw new SourceError(
      NAME,
      `no FAT filesystem labelled ${RBXCLOUD_LABELS.join('/')} holds a cloud.json with 'vm' and 'netadp'${drives.length ? ` (searched ${drives.map((d) => d.device).join(', ')})` : ''}`,
    );
  },
  async activate(ctx: ActivateContext, data: InstanceData) {
    const pairs = rbxArpPairs(data.networkConfig?.config);
    if (ctx.platform.root !== '/') {
      ctx.log.info(
        `RbxCloud: ${pairs.length} gratuitous ARP announcements not sent: the root is an image (${ctx.platform.root}), not the running system`,
      );
      return;
    }
    const sourceFlag = ['fedora', 'centos', 'rhel'].includes(ctx.distroName) ? '-s' : '-S';
    for (const p of pairs) {
      // A failure is a warning, as cloud-init's: the system works without it, some ARP cache just waits to expire.
      let reason: string | undefined;
      try {
        const r = await ctx.platform.run(['arping', '-c', '2', sourceFlag, p.source, p.destination], {
          allowFailure: true,
          timeoutMs: 10_000,
        });
        if (r.code !== 0) reason = `exit code ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`;
      } catch (err) {
        reason = describeError(err);
      }
      if (reason !== undefined) ctx.log.warn(`Failed to arping from "${p.source}" to "${p.destination}": ${reason}`);
    }
  },
};
