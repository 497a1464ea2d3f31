// cc_install_hotplug: installs the udev rule that runs the hotplug hook when the source supports hotplug and the
// config enables it (`updates: network: when: [hotplug]`), and removes a rule left from before when it does not.
import { installHotplug } from '../sources/hotplug-udev-rule';
import { EVENT_TYPES, sourceNameFromDescription } from '../sources/update-events';
import type { Module } from './module';
import { configModule } from './support/config-module';
import { readConfigValue, type ReaderWarn, WarningReader } from './support/config-readers';
import { isRecord } from './support/config-shapes';

/**
 * updates.network.when as userdata_to_events reads it: every name an EventType, or upstream's warning about the first
 * that is not and no events at all for the network scope ([]).
 */
const networkEvents = new WarningReader(
  (when) =>
    Array.isArray(when) && when.every((w: unknown) => (EVENT_TYPES as readonly unknown[]).includes(w))
      ? when
      : undefined,
  (when) =>
    `'${String((when as unknown[]).find((w) => !(EVENT_TYPES as readonly unknown[]).includes(w)))}' is not a valid EventType! Update data will be ignored for 'network' scope`,
  [],
);

/**
 * updates as kiln's update events read it (sources/update-events.ts): only its network scope's `when` list; an
 * updates, network or when of another type is as if absent (the source's default events), as it was before.
 */
function updatesSetting(updates: unknown, warn?: ReaderWarn): unknown {
  if (!isRecord(updates)) return undefined;
  const network = updates.network;
  if (!isRecord(network) || !Array.isArray(network.when)) return {};
  return { network: { when: readConfigValue(networkEvents, network.when, warn) } };
}

export const installHotplugModule: Module = configModule({
  name: 'install_hotplug',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  configKeys: { updates: updatesSetting },
  async run(ctx, cfg) {
    // The found source, by cloud-init's name for it; no source (None, or none at all) supports hotplug.
    const source = sourceNameFromDescription(ctx.datasource) ?? 'None';
    await installHotplug({
      platform: ctx.platform,
      log: ctx.log,
      source,
      cfg,
      cloudDir: ctx.paths.cloudDir,
      warn: (m) => ctx.recoverable('WARNING', m),
    });
  },
});
