// ifupdown's activator: `ifup NAME` for each interface the config names (cloud-init's IfUpDownActivator).
import { alterInterface, bringUpEach, interfaceNames, type NetworkActivator } from './activator';

export const ifupdownActivator: NetworkActivator = {
  name: 'eni',
  // One `ifup` per interface rather than `ifup --all`: NetworkManager's ifupdown plugin needs a connection's name.
  bringUpAll: (ctx, state) => bringUpEach(interfaceNames(state), (d) => alterInterface(ctx, ['ifup', d], d)),
  bringUpInterface: (ctx, device) => alterInterface(ctx, ['ifup', device], device),
  bringDownInterface: (ctx, device) => alterInterface(ctx, ['ifdown', device], device),
};
