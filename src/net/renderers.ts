// Every network renderer in one list, and cloud-init's default order for choosing among them.
import { eniRenderer } from './render/eni';
import { netplanRenderer } from './render/netplan';
import { networkManagerRenderer } from './render/network-manager';
import { networkdRenderer } from './render/networkd';
import { sysconfigRenderer } from './render/sysconfig';
import type { NetworkRenderer, RendererName } from './renderer';

export const RENDERERS: Record<RendererName, NetworkRenderer> = {
  eni: eniRenderer,
  netplan: netplanRenderer,
  networkd: networkdRenderer,
  sysconfig: sysconfigRenderer,
  'network-manager': networkManagerRenderer,
};

/** cloud-init's default priority when `system_info.network.renderers` is not set. */
export const DEFAULT_RENDERER_PRIORITY: RendererName[] = ['eni', 'sysconfig', 'netplan', 'network-manager', 'networkd'];

export function isRendererName(s: string): s is RendererName {
  return s in RENDERERS;
}
