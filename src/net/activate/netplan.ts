// netplan's activator: `netplan apply` for the whole config, whatever is asked (cloud-init's NetplanActivator).
import { alterInterface, type ActivatorContext, type NetworkActivator } from './activator';

const NETPLAN_APPLY = ['netplan', 'apply'];

function apply(ctx: ActivatorContext): Promise<boolean> {
  ctx.log.debug("Calling 'netplan apply' rather than altering individual interfaces");
  return alterInterface(ctx, NETPLAN_APPLY, 'all');
}

export const netplanActivator: NetworkActivator = {
  name: 'netplan',
  bringUpAll: (ctx) => alterInterface(ctx, NETPLAN_APPLY, 'all'),
  bringUpInterface: (ctx) => apply(ctx),
  bringDownInterface: (ctx) => apply(ctx),
};
