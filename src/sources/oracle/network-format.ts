// Oracle's network config as cloud-init's DataSourceOracle builds it: the iSCSI (initramfs) config or the primary VNIC,
// plus secondary VNICs when asked.
import { isObj, type Obj } from '../../net/check';
import { initramfsNetworkConfig } from '../../net/initramfs-config';
import { isIpNetwork } from '../../net/ip';
import { macsToNames, type NicFacts } from '../../net/sys-class-net';
import type { NetworkFormat } from '../../net/network-format';

/** cloud-init's MTU for OCI interfaces (OCI documents 9000 inside its networks). */
export const ORACLE_MTU = 9000;

/**
 * v1 config from the source's `{vnics, configureSecondaryNics}` and the klibc files of the initramfs (any file
 * counts, as on iSCSI-root bare metal). Without that config every VNIC is configured (the primary, vnics[0],
 * by DHCP; the others with their private address statically, whatever configure_secondary_nics says, as
 * cloud-init does); with it, the secondaries only when configureSecondaryNics is set and this is no bare metal. VNICs
 * whose MAC is on no interface here are skipped, and, as cloud-init swallows a malformed IMDS answer, an entry that
 * makes no sense ends the list there. Undefined when nothing results (the fallback applies).
 */
export function convertOracleNetwork(
  data: unknown,
  nics: NicFacts[],
  klibcFiles: Record<string, string>,
): Obj | undefined {
  const input = isObj(data) ? data : {};
  const macs = macsToNames(nics);
  const config: Obj[] = [];
  if (Object.keys(klibcFiles).length > 0) {
    const fromInitramfs = initramfsNetworkConfig(klibcFiles, '', true, macs);
    if (fromInitramfs && Array.isArray(fromInitramfs.config)) config.push(...(fromInitramfs.config as Obj[]));
  }
  const setPrimary = config.length === 0;
  const secondaries = input.configureSecondaryNics === true;
  const vnics = Array.isArray(input.vnics) ? input.vnics.filter(isObj) : undefined;
  // Bare metal lists nicIndex: cloud-init configures no secondary VNIC there.
  const bareMetal = vnics?.[0] !== undefined && 'nicIndex' in vnics[0];
  if (vnics && (setPrimary || (secondaries && !bareMetal))) {
    for (const [index, vnic] of (setPrimary ? vnics : vnics.slice(1)).entries()) {
      const entry = vnicEntry(vnic, setPrimary && index === 0, macs);
      if (entry === 'stop') break;
      if (entry) config.push(entry);
    }
  }
  if (config.length === 0) return undefined;
  netfailoverSafe(config, nics);
  return { version: 1, config };
}

function vnicEntry(vnic: Obj, primary: boolean, macs: Map<string, string>): Obj | undefined | 'stop' {
  if (typeof vnic.macAddr !== 'string') return 'stop';
  const mac = vnic.macAddr.toLowerCase();
  const name = macs.get(mac);
  if (!name) return undefined;
  const v4 = typeof vnic.privateIp === 'string' && vnic.privateIp !== '' ? vnic.privateIp : undefined;
  const v6 =
    Array.isArray(vnic.ipv6Addresses) && typeof vnic.ipv6Addresses[0] === 'string' ? vnic.ipv6Addresses[0] : undefined;
  // cloud-init 25.1: a VNIC with an IPv6 subnet and no private IPv4 is IPv6-only (OCI added those).
  const v6Only = Boolean(vnic.ipv6SubnetCidrBlock) && !vnic.privateIp;
  // 25.1 takes the VNIC's network (the IPv6 address for an IPv6-only one, else subnetCidrBlock) before anything
  // else: one it cannot read ends the list, primary or not.
  if (v6Only ? v6 === undefined || !isIpNetwork(v6) : cidrPrefix(vnic.subnetCidrBlock) === undefined) return 'stop';
  const subnets: Obj[] = [];
  if (primary) subnets.push({ type: v6Only ? 'dhcp6' : 'dhcp' });
  else {
    if (v4) subnets.push({ type: 'static', address: `${v4}/${cidrPrefix(vnic.subnetCidrBlock) ?? 32}` });
    // Deliberately not 25.1: the IPv6 address gets its own subnet's prefix (25.1 gives it the IPv4 subnet's).
    if (v6) subnets.push({ type: 'static', address: `${v6}/${cidrPrefix(vnic.ipv6SubnetCidrBlock) ?? 64}` });
  }
  return { name, type: 'physical', mac_address: mac, mtu: ORACLE_MTU, subnets };
}

/** The prefix length of 'addr/N'; undefined for anything else. */
function cidrPrefix(v: unknown): number | undefined {
  if (typeof v !== 'string' || !isIpNetwork(v)) return undefined;
  const p = v.split('/')[1];
  return p !== undefined && /^\d+$/.test(p) ? Number(p) : undefined;
}

/**
 * cloud-init's _ensure_netfailover_safe: a netfailover master shares its MAC with its standby devices, so it is not
 * matched by MAC.
 */
function netfailoverSafe(config: Obj[], nics: NicFacts[]): void {
  for (const cfg of config) {
    if (cfg.type !== 'physical' || typeof cfg.mac_address !== 'string') continue;
    const nic = nics.find((n) => n.mac === cfg.mac_address && !n.hasMaster);
    if (nic && nic.driver === 'virtio_net' && nic.standbyFeature) delete cfg.mac_address;
  }
}

/** The 'oracle' format the Oracle source's network config is in, built at render time from the machine's NICs. */
export const oracleNetworkFormat: NetworkFormat = {
  name: 'oracle',
  toNetworkConfig: (config, ctx) => convertOracleNetwork(config, ctx.nics, ctx.runNetFiles),
};
