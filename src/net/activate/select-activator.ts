// Picks the network activator as cloud-init's select_activator: the first of system_info.network.activators (else
// eni, netplan, network-manager, networkd) whose tools are in the target, the same test as the renderer's.
import type { Platform } from '../../platform/platform';
import { NetworkConfigError } from '../net-error';
import { rendererAvailable } from '../render-network';
import type { ActivatorName, NetworkActivator } from './activator';
import { ifupdownActivator } from './ifupdown';
import { netplanActivator } from './netplan';
import { networkdActivator } from './networkd';
import { networkManagerActivator } from './network-manager';

export const DEFAULT_ACTIVATOR_PRIORITY: readonly ActivatorName[] = ['eni', 'netplan', 'network-manager', 'networkd'];

const ACTIVATORS: Record<ActivatorName, NetworkActivator> = {
  eni: ifupdownActivator,
  netplan: netplanActivator,
  'network-manager': networkManagerActivator,
  networkd: networkdActivator,
};

function isActivatorName(name: string): name is ActivatorName {
  return Object.hasOwn(ACTIVATORS, name);
}

/**
 * The activator to bring interfaces up with, or undefined when none of PRIORITY is available (cloud-init then warns
 * and leaves the interfaces down). An unknown name is an error naming the setting, as cloud-init's ValueError.
 */
export async function selectActivator(
  p: Platform,
  distro: string,
  priority?: readonly string[],
): Promise<NetworkActivator | undefined> {
  const order = priority ?? DEFAULT_ACTIVATOR_PRIORITY;
  const unknown = order.filter((n) => !isActivatorName(n));
  if (unknown.length) {
    throw new NetworkConfigError(
      'system_info.network.activators',
      `unknown activator${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `'${n}'`).join(', ')}; expected some of ${DEFAULT_ACTIVATOR_PRIORITY.join(', ')}`,
    );
  }
  for (const name of order as ActivatorName[]) if (await rendererAvailable(p, name, distro)) return ACTIVATORS[name];
  return undefined;
}
