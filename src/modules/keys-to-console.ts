// cc_keys_to_console: runs cloud-init's write-ssh-key-fingerprints helper (when the target has it) for the console.
import { cfgList, isFalse } from './config-values';
import { isRecord } from './config-shapes';
import type { Module } from './module';

export const KEYS_HELPER = '/usr/lib/cloud-init/write-ssh-key-fingerprints';

export const keysToConsoleModule: Module = {
  name: 'keys_to_console',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  async run(ctx, cfg): Promise<void> {
    const ssh = isRecord(cfg.ssh) ? cfg.ssh : {};
    if (isFalse(ssh.emit_keys_to_console ?? true)) {
      ctx.log.debug('Skipping module named keys_to_console, logging of SSH host keys disabled');
      return;
    }
    if (!(await ctx.platform.exists(KEYS_HELPER))) {
      ctx.log.warn(`Unable to activate module keys_to_console, helper tool not found at ${KEYS_HELPER}`);
      return;
    }
    const fpBlacklist = (cfgList(cfg, 'ssh_fp_console_blacklist') ?? []);
    const keyBlacklist = (cfgList(cfg, 'ssh_key_console_blacklist') ?? ['ssh-dss']);
    const r = await ctx.platform.run([KEYS_HELPER, fpBlacklist.join(','), keyBlacklist.join(',')]);
    await ctx.output(`${r.stdout.trim()}\n`);
  },
};
