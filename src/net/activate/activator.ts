// What every network activator is (cloud-init's NetworkActivator) and the one way they run a command on an interface.
import type { Platform, RunResult } from '../../platform/platform';
import type { Log } from '../../util/log';
import type { NetworkState } from '../model';
import { describeError } from '../../util/errors';

/** The names system_info.network.activators accepts, as cloud-init spells them. */
export type ActivatorName = 'eni' | 'netplan' | 'network-manager' | 'networkd';

/** Where an activator acts: the target's commands, and the log its warnings go to. */
export interface ActivatorContext {
  platform: Platform;
  log: Log;
}

export interface NetworkActivator {
  readonly name: ActivatorName;
  /** Brings up every interface of STATE; false when a command failed (cloud-init logs it and boots on). */
  bringUpAll(ctx: ActivatorContext, state: NetworkState): Promise<boolean>;
  /** Brings up one interface (hotplug's way in). */
  bringUpInterface(ctx: ActivatorContext, device: string): Promise<boolean>;
  /** Takes one interface down (hotplug's remove). */
  bringDownInterface(ctx: ActivatorContext, device: string): Promise<boolean>;
}

/**
 * How long one activation command may take. cloud-init waits on the command without a limit of its own and relies on
 * the tool's: ifup's dhclient gives up after Debian's dhclient.conf `timeout 300`, NetworkManager and netplan return
 * sooner. kiln bounds the wait at the same five minutes (plus a margin) so a stuck tool cannot hold the boot forever.
 */
export const ACTIVATION_TIMEOUT_MS = 310_000;

/** argv as Python prints a list of strings, the way cloud-init's log names a command. */
export function pythonList(argv: string[]): string {
  return `[${argv.map((a) => `'${a.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ')}]`;
}

/**
 * cloud-init's `_alter_interface`: runs CMD for DEVICE; output on stderr is a warning but still a success, a failing
 * command is a warning and false. Nothing is thrown: one interface that does not come up never stops the boot.
 */
export async function alterInterface(ctx: ActivatorContext, cmd: string[], device: string): Promise<boolean> {
  ctx.log.debug(`Attempting command ${pythonList(cmd)} for device ${device}`);
  let result: RunResult;
  try {
    result = await ctx.platform.run(cmd, { allowFailure: true, timeoutMs: ACTIVATION_TIMEOUT_MS });
  } catch (err) {
    ctx.log.warn(`Running interface command ${pythonList(cmd)} failed: ${describeError(err)}`);
    return false;
  }
  if (result.code !== 0) {
    const why = result.stderr.trim() || result.stdout.trim() || `exit code ${result.code}`;
    ctx.log.warn(`Running interface command ${pythonList(cmd)} failed (exit code ${result.code}): ${why}`);
    return false;
  }
  if (result.stderr.length > 0) ctx.log.warn(`Running ${pythonList(cmd)} resulted in stderr output: ${result.stderr}`);
  return true;
}

/** Python's all() over the devices: stops at the first one that fails, as cloud-init's bring_up_interfaces does. */
export async function bringUpEach(
  devices: Iterable<string>,
  one: (device: string) => Promise<boolean>,
): Promise<boolean> {
  for (const device of devices) if (!(await one(device))) return false;
  return true;
}

/** The names of STATE's interfaces, in the order the config gave them (cloud-init's iter_interfaces). */
export function interfaceNames(state: NetworkState): string[] {
  return [...state.interfaces.keys()];
}
