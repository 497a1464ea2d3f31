// EC2 IMDS `network/interfaces/macs` converted to network config v2 as cloud-init 25.1's
// convert_ec2_metadata_network_config: DHCP on every NIC, secondary IPs as addresses, and (netplan only) source
// routing for secondary NICs.
import { isObj, obj, type Obj } from '../../net/check';
import { NetworkConfigError } from '../../net/net-error';
import type { NetworkFormat } from '../../net/network-format';
import { candidateNics } from '../../net/fallback';
import { pyTruthy as truthy } from '../../util/python-truthy';

export interface Ec2NetworkOptions {
  /** apply_full_imds_network_config; false: DHCP on the primary NIC only. */
  full?: boolean;
  /** The fallback NIC's name (the primary NIC when FULL is false). */
  primary?: string;
  /**
   * The config is for netplan: secondary NICs get their own routing table and a rule for their addresses, as
   * 25.1 does for netplan only (v2 `routing-policy` reaches no other renderer).
   */
  policyRouting?: boolean;
}

function ipList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string')
    return v
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
  return [];
}

/** Python's truth of an IMDS value: absent, empty and 0 are false ("0" is true). */
function secondary(meta: Obj, cidrKey: string, ips: string[], defaultPrefix: string): string[] {
  const cidr = meta[cidrKey];
  const prefix =
    typeof cidr === 'string' && cidr.split('/').length === 2 ? (cidr.split('/')[1] as string) : defaultPrefix;
  return ips.slice(1).map((ip) => `${ip}/${prefix}`);
}

/** A sort key part: the IMDS number, or after every number when absent (cloud-init's float('infinity')). */
function orderNumber(meta: Obj, key: string, where: string): number {
  const v = meta[key];
  if (v === undefined || v === null) return Number.POSITIVE_INFINITY;
  const n = Number.parseInt(String(v), 10);
  if (!Number.isInteger(n) || String(n) !== String(v).trim())
    throw new NetworkConfigError(`${where}.${key}`, `'${String(v)}' is not a number`);
  return n;
}

/**
 * Each NIC's place: by network-card, then device-number, then MAC (cloud-init's _build_nic_order); 0 is the
 * primary NIC.
 */
function nicOrder(byMac: Obj, macs: Array<[string, string]>, key: string): Map<string, number> {
  const present = macs
    .filter(([mac]) => isObj(byMac[mac]))
    .map(([mac]) => {
      const meta = byMac[mac] as Obj;
      return {
        mac,
        card: orderNumber(meta, 'network-card', `${key}.${mac}`),
        device: orderNumber(meta, 'device-number', `${key}.${mac}`),
      };
    });
  present.sort((a, b) => a.card - b.card || a.device - b.device || (a.mac < b.mac ? -1 : a.mac > b.mac ? 1 : 0));
  return new Map(present.map((p, i) => [p.mac, i]));
}

/**
 * Routes to the NIC's subnets in TABLE and a rule sending its addresses' traffic there (cloud-init's
 * _configure_policy_routing). cloud-init also adds a default route in TABLE through the gateway a DHCP discovery
 * on the NIC reports; kiln runs no DHCP client here, so that route is left out, as when cloud-init's discovery fails.
 */
function policyRouting(dev: Obj, meta: Obj, ipv4: boolean, table: number): void {
  const subnets = ipList(meta[ipv4 ? 'subnet-ipv4-cidr-block' : 'subnet-ipv6-cidr-blocks']);
  const ips = ipList(meta[ipv4 ? 'local-ipv4s' : 'ipv6s']);
  if (!subnets.length || !ips.length) return;
  const routes = (dev.routes ??= []) as Obj[];
  // `scope: link` is netplan's default for a route without `via`; 25.1's file (written through netplan's API) spells
  // it.
  for (const to of subnets) routes.push({ scope: 'link', table, to });
  const rules = (dev['routing-policy'] ??= []) as Obj[];
  for (const from of ips) rules.push({ from, table });
}

/**
 * IMDS is the `network` tree of the metadata ({interfaces: {macs: {...}}}); MACS maps lower-case MACs to this
 * machine's interface names. Only NICs present on the machine are configured, as cloud-init does.
 */
export function convertEc2Network(imds: unknown, macs: Map<string, string>, opts: Ec2NetworkOptions = {}): Obj {
  const key = 'ec2.network';
  const tree = obj(imds, key);
  const byMac = obj(obj(tree.interfaces, `${key}.interfaces`).macs, `${key}.interfaces.macs`);
  const ethernets: Record<string, Obj> = {};
  if (opts.full === false) {
    const entry = [...macs.entries()].find(([, n]) => n === opts.primary) ?? [...macs.entries()][0];
    if (!entry) throw new NetworkConfigError(key, 'no network interface on this machine to configure');
    const [mac, name] = entry;
    const meta = isObj(byMac[mac]) ? byMac[mac] : {};
    ethernets[name] = {
      dhcp4: true,
      dhcp6: ipList(meta.ipv6s).length > 0,
      match: { macaddress: mac.toLowerCase() },
      'set-name': name,
    };
    return { version: 2, ethernets };
  }
  const sorted = [...macs.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const order = nicOrder(byMac, sorted, `${key}.interfaces.macs`);
  for (const [mac, name] of sorted) {
    const meta = byMac[mac];
    if (!isObj(meta)) continue;
    const idx = order.get(mac) as number;
    // One object for both overrides, as in cloud-init: use-routes set for IPv4 shows in dhcp6-overrides too.
    const override: Obj = { 'route-metric': (idx + 1) * 100 };
    const dev: Obj = {
      dhcp4: true,
      'dhcp4-overrides': override,
      dhcp6: false,
      match: { macaddress: mac.toLowerCase() },
      'set-name': name,
    };
    const routed = opts.policyRouting === true && truthy(meta['device-number']) && idx !== 0;
    if (routed) {
      override['use-routes'] = true;
      policyRouting(dev, meta, true, 100 + idx);
    }
    const v4 = ipList(meta['local-ipv4s']);
    const v6 = ipList(meta.ipv6s);
    if (v6.length) {
      dev.dhcp6 = true;
      dev['dhcp6-overrides'] = override;
      if (routed) policyRouting(dev, meta, false, 100 + idx);
    }
    const addresses = [
      ...(v4.length > 1 ? secondary(meta, 'subnet-ipv4-cidr-block', v4, '24') : []),
      ...(v6.length > 1 ? secondary(meta, 'subnet-ipv6-cidr-block', v6, '128') : []),
    ].sort();
    if (addresses.length) dev.addresses = addresses;
    ethernets[name] = dev;
  }
  const names = Object.keys(ethernets);
  if (names.length === 1) {
    const only = ethernets[names[0] as string] as Obj;
    for (const k of ['dhcp4-overrides', 'dhcp6-overrides', 'routes', 'routing-policy']) delete only[k];
  }
  return { version: 2, ethernets };
}

/**
 * The 'ec2' format (the IMDS `network` tree): every NIC, with source routing when the renderer is netplan; with
 * `full: false` (apply_full_imds_network_config), DHCP on the fallback NIC only, as cloud-init does.
 */
export const ec2NetworkFormat: NetworkFormat = {
  name: 'ec2',
  toNetworkConfig(config, ctx) {
    if (ctx.full !== false) return convertEc2Network(config, ctx.macs, { policyRouting: ctx.renderer === 'netplan' });
    const primary = candidateNics(ctx.nics, ctx.blacklistDrivers)[0];
    return convertEc2Network(config, ctx.macs, { full: false, ...(primary ? { primary } : {}) });
  },
};
