// cc_resizefs: grows the root filesystem (ext2/3/4, xfs, btrfs) to fill its now larger partition, every boot.
import { pyStr } from '../util/python-str';
import { isTrue } from './support/config-values';
import { configModule } from './support/config-module';
import { readConfigValue } from './support/config-readers';
import { pyTruthy } from '../util/python-truthy';
import { type Module, ModuleError } from './module';
import { blockInfo, mountFor } from '../platform/linux/mount-info';

/** The resize command for FSTYPE mounted at MOUNT from DEVICE, or undefined when kiln has none. */
export function resizeCommand(fstype: string, device: string, mount: string): string[] | undefined {
  if (/^ext[234]$/.test(fstype)) return ['resize2fs', device];
  if (fstype === 'xfs') return ['xfs_growfs', mount];
  if (fstype === 'btrfs') return ['btrfs', 'filesystem', 'resize', 'max', mount];
  return undefined;
}

/**
 * resize_rootfs as cc_resizefs reads it: get_cfg_option_str's str() of it, then translate_bool with 'noblock' as a
 * true word: false for what is no true word (False, 'no', 'sometimes': the module is skipped, as 22.4 and 25.1
 * do), 'noblock' only for that exact word, true for the other true words.
 */
function resizeSetting(value: unknown): boolean | 'noblock' {
  const word = readConfigValue('str', value) as string;
  if (!pyTruthy(word) || !isTrue(word, ['noblock'])) return false;
  return word === 'noblock' ? 'noblock' : true;
}

export const resizefs: Module = configModule({
  name: 'resizefs',
  stage: 'init',
  frequency: 'always',
  distros: 'all',
  activateBy: [],
  configKeys: { resize_rootfs: resizeSetting },
  async run(ctx, cfg): Promise<void> {
    const setting = cfg.resize_rootfs ?? true;
    if (setting === false) {
      ctx.log.debug('Skipping module named resizefs, resizing disabled');
      return;
    }
    const noblock = setting === 'noblock';
    const mount = await mountFor(ctx.platform, '/');
    if (!mount) {
      ctx.log.warn('Could not determine filesystem type of /');
      return;
    }
    if (mount.fstype === 'overlay' || mount.fstype === 'tmpfs' || mount.fstype === 'zfs') {
      ctx.log.debug(`Skipping resizefs: root is ${mount.fstype}`);
      return;
    }
    const info = await blockInfo(ctx.platform, { devno: mount.devno });
    const device = info?.device ?? mount.source;
    if (!(await ctx.platform.exists(device))) {
      ctx.log.warn(`Device '${device}' did not exist. cannot resize: ${mount.devno}`);
      return;
    }
    const cmd = resizeCommand(mount.fstype, device, '/');
    if (!cmd) {
      ctx.log.warn(`Not resizing unknown filesystem type ${mount.fstype} for /`);
      return;
    }
    if (noblock) {
      ctx.log.debug(`Resizing (via forking) root filesystem (type=${mount.fstype}, val=noblock)`);
      const quoted = cmd.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
      await ctx.platform.run(['/bin/sh', '-c', `(${quoted}) >/dev/null 2>&1 &`]);
      return;
    }
    const r = await ctx.platform.run(cmd, { allowFailure: true });
    await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0) throw new ModuleError('resizefs', `${cmd.join(' ')} failed (${r.code}): ${r.stderr.trim()}`);
    ctx.log.debug(`Resized root filesystem (type=${mount.fstype}, val=${pyStr(setting)})`);
  },
});
