// NetworkManager's activator: load the connection file kiln wrote and bring it up (cloud-init's
// NetworkManagerActivator).
import { alterInterface, bringUpEach, interfaceNames, type ActivatorContext, type NetworkActivator } from './activator';

/** The keyfile the network-manager renderer writes for DEVICE (cloud-init's conn_filename). */
export function connectionFile(device: string): string {
  return `/etc/NetworkManager/system-connections/cloud-init-${device}.nmconnection`;
}

/** `nmcli connection load FILE`, then up by file; when the load fails, reload all and bring the device up by name. */
async function bringUp(ctx: ActivatorContext, device: string): Promise<boolean> {
  const file = connectionFile(device);
  if (await alterInterface(ctx, ['nmcli', 'connection', 'load', file], device)) {
    return alterInterface(ctx, ['nmcli', 'connection', 'up', 'filename', file], device);
  }
  await alterInterface(ctx, ['nmcli', 'connection', 'reload'], device);
  return alterInterface(ctx, ['nmcli', 'connection', 'up', 'ifname', device], device);
}

export const networkManagerActivator: NetworkActivator = {
  name: 'network-manager',
  bringUpAll: (ctx, state) => bringUpEach(interfaceNames(state), (d) => bringUp(ctx, d)),
  bringUpInterface: bringUp,
  bringDownInterface: (ctx, device) => alterInterface(ctx, ['nmcli', 'device', 'disconnect', device], device),
};
