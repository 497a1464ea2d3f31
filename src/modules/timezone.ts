// cc_timezone: /etc/timezone and /etc/localtime (Debian, Alpine, Arch), a localtime link or sysconfig clock (RHEL,
// SUSE).
import { posix } from 'node:path';
import { usesSystemd } from './support/distro-facts';
import { ModuleError, type Module, type ModuleContext } from './module';
import { configModule } from './support/config-module';
import { makeHeader } from './support/cloud-header';
import { updateSysconfigFile } from './support/sysconfig-file';

export const ZONEINFO_DIR = '/usr/share/zoneinfo';

export async function setTimezone(ctx: ModuleContext, tz: string): Promise<void> {
  const { platform } = ctx;
  const zoneFile = posix.join(ZONEINFO_DIR, tz);
  const st = await platform.stat(zoneFile);
  if (st?.type !== 'file') throw new ModuleError('timezone', `Invalid timezone ${tz}, no file found at ${zoneFile}`);
  const family = ctx.distro.family;
  if (family === 'redhat' || family === 'suse') {
    if (await usesSystemd(platform)) {
      await platform.remove('/etc/localtime');
      await platform.symlink(zoneFile, '/etc/localtime');
    } else {
      const key = family === 'suse' ? 'TIMEZONE' : 'ZONE';
      await updateSysconfigFile(platform, '/etc/sysconfig/clock', { [key]: tz }, makeHeader());
      await platform.writeFile('/etc/localtime', await platform.readFile(zoneFile), { mode: 0o644 });
    }
    return;
  }
  // set_etc_timezone: /etc/timezone, then a link when localtime is a link or missing, else a copy.
  await platform.writeFile('/etc/timezone', `${tz.trimEnd()}\n`, { mode: 0o644 });
  const local = await lstatKind(ctx, '/etc/localtime');
  if (local === 'link' || local === 'missing') {
    if (local === 'link') await platform.remove('/etc/localtime');
    await platform.symlink(zoneFile, '/etc/localtime');
  } else {
    await platform.writeFile('/etc/localtime', await platform.readFile(zoneFile));
  }
}

/** Whether PATH is a symlink, another file, or absent, without following a final link. */
async function lstatKind(ctx: ModuleContext, path: string): Promise<'link' | 'file' | 'missing'> {
  const st = await ctx.platform.stat(path, { followLinks: false });
  return st === undefined ? 'missing' : st.type === 'symlink' ? 'link' : 'file';
}

export const timezoneModule: Module = configModule({
  name: 'timezone',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['timezone'],
  // get_cfg_option_str: 5 is '5', null is 'None' (no such zone: the module fails, as cloud-init's does).
  configKeys: { timezone: 'str' },
  async run(ctx, cfg): Promise<void> {
    const tz = cfg.timezone ?? '';
    if (!tz) {
      ctx.log.debug("Skipping module named timezone, no 'timezone' specified");
      return;
    }
    await setTimezone(ctx, tz);
  },
});
