// cc_set_hostname: sets the static and running hostname once per instance, remembering what it set in
// data/set-hostname.
import { posix } from 'node:path';
import { distroOpsFor } from '../platform/linux/distro/detect-distro';
import { configModule } from './support/config-module';
import { hostnameAndFqdn, SET_HOSTNAME_READERS, mayWriteHostnameFile, selectHostname } from './support/hostname-facts';
import { type Module, ModuleError } from './module';
import { describeError } from '../util/errors';

export const setHostname: Module = configModule({
  name: 'set_hostname',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  configKeys: SET_HOSTNAME_READERS,
  async run(ctx, cfg): Promise<void> {
    if (cfg.preserve_hostname) {
      ctx.log.debug("Configuration option 'preserve_hostname' is set, not setting the hostname in module set_hostname");
      return;
    }
    const { hostname, fqdn, isDefault } = await hostnameAndFqdn(ctx, cfg);
    const prevFile = posix.join(ctx.paths.cloudDir, 'data', 'set-hostname');
    let prev: { hostname?: string; fqdn?: string } = {};
    const prevText = await ctx.platform.readTextIfExists(prevFile);
    if (prevText) {
      try {
        prev = JSON.parse(prevText) as typeof prev;
      } catch {
        prev = {}; // a corrupt record counts as none: the hostname is set again rather than the module failing
      }
    }
    if (prev.hostname === hostname && prev.fqdn === fqdn) {
      ctx.log.debug('No hostname changes. Skipping set-hostname');
      return;
    }
    if (isDefault && hostname === 'localhost') {
      ctx.log.debug('Hostname is localhost. Let other services handle this.');
      return;
    }
    const ops = await distroOpsFor(ctx.platform, ctx.distro);
    const chosen = selectHostname(ctx, cfg, hostname, fqdn);
    ctx.log.debug(`Setting the hostname to ${fqdn} (${hostname})`);
    try {
      if (await mayWriteHostnameFile(ctx, cfg, ops.hostnameFile)) await ops.writeHostname(ctx.platform, chosen);
    } catch (err) {
      throw new ModuleError(
        'set_hostname',
        `failed to set the hostname to ${fqdn} (${hostname}): ${describeError(err)}`,
        { cause: err },
      );
    }
    if (!(await ctx.platform.setHostname(chosen)))
      ctx.log.warn(`Failed to non-persistently adjust the system hostname to ${chosen}`);
    // cloud-init's write_json: sorted keys, one-space indent, ASCII only (json.dumps' ensure_ascii), trailing newline.
    const json = JSON.stringify({ fqdn, hostname }, null, 1).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    await ctx.platform.writeFile(prevFile, `${json}\n`, { mode: 0o644 });
  },
});
