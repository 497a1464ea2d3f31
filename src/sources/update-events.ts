// Which update events (boot, hotplug …) each datasource supports and enables by default, and whether one is enabled
// for an instance: cloud-init's supported_update_events, default_update_events and stages.update_event_enabled.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';
import { describeError } from '../util/errors';

export type EventType = 'boot' | 'boot-new-instance' | 'boot-legacy' | 'hotplug';
export const EVENT_TYPES: readonly EventType[] = ['boot', 'boot-new-instance', 'boot-legacy', 'hotplug'];
/** cloud-init's EventScope: network is the only one. */
export type EventScope = 'network';

interface SourceEvents {
  supported: readonly EventType[];
  default: readonly EventType[];
}

/**
 * The base DataSource's (25.1): every event supported, so a user's `updates` can turn boot, boot-legacy and
 * hotplug on for any source; only a new instance by default.
 */
const BASE: SourceEvents = {
  supported: ['boot-new-instance', 'boot', 'boot-legacy', 'hotplug'],
  default: ['boot-new-instance'],
};
/** Sources that render their network on every boot by default (25.1's RbxCloud, SmartOS and Scaleway). */
const EVERY_BOOT: SourceEvents = { supported: BASE.supported, default: ['boot-new-instance', 'boot', 'boot-legacy'] };

/**
 * The sources whose defaults differ from the base class in cloud-init 25.1 (Debian 13's): Azure, GCE and AliYun
 * render their network on every boot; RbxCloud, SmartOS and Scaleway too (BOOT in init-local, BOOT_LEGACY again in
 * the init stage); Ec2 takes hotplug events by default. Ec2, OpenStack and ConfigDrive override the supported set, but
 * with the base's four events.
 */
const SOURCE_EVENTS: Record<string, SourceEvents> = {
  Azure: { supported: BASE.supported, default: ['boot-new-instance', 'boot'] },
  GCE: { supported: BASE.supported, default: ['boot-new-instance', 'boot'] },
  Ec2: { supported: BASE.supported, default: ['boot-new-instance', 'hotplug'] },
  AliYun: { supported: BASE.supported, default: ['boot-new-instance', 'boot'] },
  RbxCloud: EVERY_BOOT,
  SmartOS: EVERY_BOOT,
  Scaleway: EVERY_BOOT,
};

export function sourceEvents(source: string): SourceEvents {
  return SOURCE_EVENTS[source] ?? BASE;
}

export function supportsEvent(source: string, event: EventType): boolean {
  return sourceEvents(source).supported.includes(event);
}

/**
 * The source's name in cloud-init's str(datasource) ('DataSourceOpenStackLocal [net,ver=2]' → 'OpenStack'): the
 * Local class of a network source is the same source for its events.
 */
export function sourceNameFromDescription(description: string | undefined): string | undefined {
  const m = /^DataSource(\w+?)(Local|Net)?(\s|\[|$)/.exec(description ?? '');
  return m?.[1];
}

/**
 * cloud-init's userdata_to_events for the network scope: the `updates.network.when` list (unknown names are dropped
 * with a warning).
 */
export function userNetworkEvents(cfg: Record<string, unknown>, log?: Log): EventType[] | undefined {
  const updates = cfg.updates;
  if (!updates || typeof updates !== 'object') return undefined;
  const network = (updates as Record<string, unknown>).network;
  if (!network || typeof network !== 'object') return undefined;
  const when = (network as Record<string, unknown>).when;
  if (!Array.isArray(when)) return undefined;
  const unknown = when.filter((w) => !(EVENT_TYPES as readonly unknown[]).includes(w));
  if (unknown.length) {
    // cloud-init turns the whole list into EventType values; one bad name empties the scope.
    log?.warn(`'${String(unknown[0])}' is not a valid EventType! Update data will be ignored for 'network' scope`);
    return [];
  }
  return when as EventType[];
}

/**
 * Newer cloud-init's `hotplug.enabled` in the cloud dir: the scopes `devel hotplug-hook enable` turned hotplug on for.
 */
export const HOTPLUG_ENABLED_FILE = 'hotplug.enabled';

export async function readHotplugEnabledScopes(p: Platform, cloudDir: string, log?: Log): Promise<string[]> {
  const path = posix.join(cloudDir, HOTPLUG_ENABLED_FILE);
  const text = await p.readTextIfExists(path);
  if (text === undefined) return [];
  try {
    const parsed = JSON.parse(text) as { scopes?: unknown };
    return Array.isArray(parsed.scopes) ? parsed.scopes.map(String) : [];
  } catch (err) {
    log?.warn(`Ignoring contents of ${path} because it is not decodable. Error: ${describeError(err)}`);
    return [];
  }
}

/**
 * cloud-init's update_event_enabled for the network scope: the user's `updates.network.when` replaces the source's
 * defaults when given; a source that supports hotplug also has it when `hotplug.enabled` names the network scope.
 */
export function updateEventEnabled(input: {
  source: string;
  cfg: Record<string, unknown>;
  event: EventType;
  hotplugEnabledScopes?: readonly string[];
  log?: Log;
}): boolean {
  const user = userNetworkEvents(input.cfg, input.log);
  const allowed = new Set<EventType>(user ?? sourceEvents(input.source).default);
  if (supportsEvent(input.source, 'hotplug') && input.hotplugEnabledScopes?.includes('network')) allowed.add('hotplug');
  const ok = allowed.has(input.event);
  input.log?.debug(
    `${ok ? 'Event Allowed' : 'Event Denied'}: scope${ok ? '' : 's'}=${ok ? 'network' : "['network']"} EventType=${input.event}`,
  );
  return ok;
}

/**
 * cloud-init 25.1's apply_network_config for an instance that is not new: the network config is applied again for
 * BOOT when it is enabled and supported and nothing was applied yet in this boot (the run dir's
 * apply_network_config semaphore), else for BOOT_LEGACY when that is (in every stage that asks). The event, or
 * undefined: then the config of the first boot stays.
 */
export function bootNetworkEvent(input: {
  source: string;
  cfg: Record<string, unknown>;
  appliedThisBoot: boolean;
  log?: Log;
}): EventType | undefined {
  const allows = (event: EventType) =>
    updateEventEnabled({ source: input.source, cfg: input.cfg, event, ...(input.log ? { log: input.log } : {}) }) &&
    supportsEvent(input.source, event);
  if (!input.appliedThisBoot && allows('boot')) return 'boot';
  if (allows('boot-legacy')) return 'boot-legacy';
  return undefined;
}
