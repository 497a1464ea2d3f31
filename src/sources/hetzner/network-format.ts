// Hetzner Cloud's metadata `network-config` (v1) with its private networks added as DHCP NICs, as cloud-init's Hetzner
// source does.
import { isObj, list, obj, str, type Obj } from '../../net/check';
import type { NetworkFormat } from '../../net/network-format';

/** What the Hetzner source hands over: metadata `network-config` and the list from metadata/private-networks. */
export interface HetznerNetwork {
  networkConfig: unknown;
  privateNetworks?: unknown;
}

/**
 * The metadata's v1 config, plus one DHCP (IPv4) physical NIC per private network, named by its MAC on this
 * machine. A private network whose NIC is not (yet) on the machine is left out: cloud-init would write a NIC
 * without a name, which no renderer takes.
 */
export function convertHetznerNetwork(input: unknown, macs: Map<string, string>): Obj {
  const root = obj(input, 'hetzner');
  const v1 = obj(root.networkConfig, 'hetzner.network-config');
  const config = [...list(v1.config, 'hetzner.network-config.config')];
  const privates =
    root.privateNetworks === undefined || root.privateNetworks === null
      ? []
      : list(root.privateNetworks, 'hetzner.private-networks');
  privates.forEach((p, i) => {
    if (!isObj(p)) return;
    const mac = str(p.mac_address, `hetzner.private-networks[${i}].mac_address`);
    const name = macs.get(mac.toLowerCase());
    if (!name) return;
    config.push({ type: 'physical', mac_address: mac, name, subnets: [{ ipv4: true, type: 'dhcp' }] });
  });
  return { ...v1, config };
}

/** The 'hetzner' format the Hetzner source's network config is in. */
export const hetznerNetworkFormat: NetworkFormat = {
  name: 'hetzner',
  toNetworkConfig: (config, ctx) => convertHetznerNetwork(config, ctx.macs),
};
