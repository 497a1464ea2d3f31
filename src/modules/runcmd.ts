// cc_runcmd: writes `runcmd` as a shell script to instances/<iid>/scripts/runcmd; scripts_user runs it later.
import { posix } from 'node:path';
import type { CloudConfig, Module, ModuleContext } from './module';
import { shellify } from './support/shellify';

/** The per-instance scripts folder (cloud-init's get_ipath('scripts')). */
export function instanceScriptsDir(ctx: ModuleContext): string {
  const id = ctx.instance?.instanceId;
  return id ? posix.join(ctx.paths.cloudDir, 'instances', id, 'scripts') : posix.join(ctx.instanceDir, 'scripts');
}

export const runcmdModule: Module = {
  name: 'runcmd',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['runcmd'],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    if (!('runcmd' in cfg)) {
      ctx.log.debug("Skipping module named runcmd, no 'runcmd' key in configuration");
      return;
    }
    const path = posix.join(instanceScriptsDir(ctx), 'runcmd');
    const script = shellify('runcmd', 'runcmd', cfg.runcmd);
    await ctx.platform.writeFile(path, script, { mode: 0o700 });
  },
};
