// The udev rules that pin physical interface names to MACs (cloud-init's 70-persistent-net.rules).
import type { NetworkState } from '../model';

export function renderPersistentNetRules(ns: NetworkState): string {
  let out = '';
  for (const iface of ns.interfaces.values()) {
    if (iface.type !== 'physical' || !iface.mac_address) continue;
    const driver = typeof iface.driver === 'string' && iface.driver ? iface.driver : '?*';
    out += `SUBSYSTEM=="net", ACTION=="add", DRIVERS=="${driver}", ATTR{address}=="${iface.mac_address}", NAME="${iface.name}"\n`;
  }
  return out;
}
