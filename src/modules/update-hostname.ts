// cc_update_hostname: every boot, re-applies the hostname unless someone else changed it since
// (data/previous-hostname).
import { posix } from 'node:path';
import { distroOpsFor } from '../platform/linux/distro/detect-distro';
import { configModule } from './support/config-module';
import { hostnameAndFqdn, SET_HOSTNAME_READERS, mayWriteHostnameFile, selectHostname } from './support/hostname-facts';
import type { Module } from './module';
import { describeError } from '../util/errors';

export const updateHostname: Module = configModule({
  name: 'update_hostname',
  stage: 'init',
  frequency: 'always',
  distros: 'all',
  activateBy: [],
  configKeys: SET_HOSTNAME_READERS,
  async run(ctx, cfg): Promise<void> {
    if (cfg.preserve_hostname) {
      ctx.log.debug(
        "Configuration option 'preserve_hostname' is set, not updating the hostname in module update_hostname",
      );
      return;
    }
    const { hostname: short, fqdn, isDefault } = await hostnameAndFqdn(ctx, cfg);
    if (isDefault && short === 'localhost') {
      ctx.log.debug('Hostname is localhost. Let other services handle this.');
      return;
    }
    const ops = await distroOpsFor(ctx.platform, ctx.distro);
    const prevFile = posix.join(ctx.paths.cloudDir, 'data', 'previous-hostname');
    const hostname = selectHostname(ctx, cfg, short, fqdn);
    const prevHostname = await ops.readHostname(ctx.platform, prevFile);
    const sysFile = ops.hostnameFile;
    const sysHostname = await ops.readHostname(ctx.platform, sysFile);
    const update = new Set<string>();
    if (!prevHostname || prevHostname !== hostname) update.add(prevFile);
    if (!sysHostname || (sysHostname === prevHostname && sysHostname !== hostname)) update.add(sysFile);
    // Someone changed the hostname after kiln first set it: theirs wins (set once per instance, then hands off).
    if (sysHostname && prevHostname && sysHostname !== prevHostname) {
      ctx.log.info(`${prevFile} differs from ${sysFile}, assuming user maintained hostname.`);
      return;
    }
    for (const file of update) {
      if (file === sysFile && !(await mayWriteHostnameFile(ctx, cfg, sysFile))) continue;
      try {
        await ops.writeHostname(ctx.platform, hostname, file);
      } catch (err) {
        // Distro.update_hostname logs a file it cannot write and goes on with the next one.
        ctx.recoverable('WARNING', `Failed to write hostname ${hostname} to ${file}: ${describeError(err)}`);
      }
    }
    if (update.has(sysFile) && !(await ctx.platform.setHostname(short))) {
      ctx.log.warn(`Failed to non-persistently adjust the system hostname to ${short}`);
    }
  },
});
