// systemd-networkd's activator (cloud-init's NetworkdActivator): the whole config by restarting networkd and resolved,
// one interface by setting its link up.
import { alterInterface, type NetworkActivator } from './activator';

export const networkdActivator: NetworkActivator = {
  name: 'networkd',
  bringUpAll: (ctx) => alterInterface(ctx, ['systemctl', 'restart', 'systemd-networkd', 'systemd-resolved'], 'all'),
  bringUpInterface: (ctx, device) => alterInterface(ctx, ['ip', 'link', 'set', 'up', device], device),
  bringDownInterface: (ctx, device) => alterInterface(ctx, ['ip', 'link', 'set', 'down', device], device),
};
