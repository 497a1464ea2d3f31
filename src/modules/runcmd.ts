// cc_runcmd: writes `runcmd` as a shell script to instances/<iid>/scripts/runcmd; scripts_user runs it later.
import { posix } from 'node:path';
import type { Module, ModuleContext } from './module';
import { configModule } from './support/config-module';
import { shellCommands, shellify } from './support/shellify';

/** The per-instance scripts folder (cloud-init's get_ipath('scripts')). */
export function instanceScriptsDir(ctx: ModuleContext): string {
  const id = ctx.instance?.instanceId;
  return id ? posix.join(ctx.paths.cloudDir, 'instances', id, 'scripts') : posix.join(ctx.instanceDir, 'scripts');
}

export const runcmdModule: Module = configModule({
  name: 'runcmd',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['runcmd'],
  // util.shellify str()s each word of a list item: [sleep, 10] runs sleep '10'.
  configKeys: { runcmd: (value: unknown) => shellCommands('runcmd', 'runcmd', value) },
  async run(ctx, cfg): Promise<void> {
    if (cfg.runcmd === undefined) {
      ctx.log.debug("Skipping module named runcmd, no 'runcmd' key in configuration");
      return;
    }
    const path = posix.join(instanceScriptsDir(ctx), 'runcmd');
    await ctx.platform.writeFile(path, shellify(cfg.runcmd), { mode: 0o700 });
  },
});
