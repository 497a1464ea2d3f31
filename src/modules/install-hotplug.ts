// cc_install_hotplug: installs the udev rule that runs the hotplug hook when the source supports hotplug and the
// config enables it (`updates: network: when: [hotplug]`), and removes a rule left from before when it does not.
import { installHotplug } from '../sources/hotplug-udev-rule';
import { sourceNameFromDescription } from '../sources/update-events';
import type { Module } from './module';

export const installHotplugModule: Module = {
  name: 'install_hotplug',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
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
};
