// cc_bootcmd: runs the bootcmd list as a shell script on every boot, early, with INSTANCE_ID in the environment.
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { type Module, ModuleError } from './module';
import { configModule } from './support/config-module';
import { shellCommands, shellify } from './support/shellify';

export const bootcmd: Module = configModule({
  name: 'bootcmd',
  stage: 'init',
  frequency: 'always',
  distros: 'all',
  activateBy: ['bootcmd'],
  // util.shellify str()s each word of a list item: [sleep, 10] runs sleep '10'.
  configKeys: { bootcmd: (value: unknown) => shellCommands('bootcmd', 'bootcmd', value) },
  async run(ctx, cfg): Promise<void> {
    if (cfg.bootcmd === undefined) {
      ctx.log.debug("Skipping module named bootcmd, no 'bootcmd' key in configuration");
      return;
    }
    const script = shellify(cfg.bootcmd);
    // /run is noexec on many systems, but the script is run through /bin/sh, so cloud-init's /run/cloud-init/tmp is
    // fine.
    const tmpDir = posix.join(ctx.paths.runDir, 'tmp');
    // World-writable and sticky, like /tmp, as cloud-init makes it.
    await ctx.platform.mkdir(tmpDir, { mode: 0o1777 });
    const tmp = posix.join(tmpDir, `tmp${randomBytes(4).toString('hex')}.sh`);
    await ctx.platform.writeFile(tmp, script, { mode: 0o600 });
    try {
      const env: Record<string, string> = {};
      if (ctx.instance?.instanceId) env.INSTANCE_ID = ctx.instance.instanceId;
      const r = await ctx.platform.run(['/bin/sh', tmp], { env, allowFailure: true });
      await ctx.output(r.stdout + r.stderr);
      if (r.code !== 0)
        throw new ModuleError(
          'bootcmd',
          `the bootcmd script exited with code ${r.code}${r.stderr ? `: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`,
        );
    } finally {
      await ctx.platform.remove(tmp);
    }
  },
});
