// cc_resizefs: grows the root filesystem (ext2/3/4, xfs, btrfs) to fill its now larger partition, every boot.
import type { Platform } from '../platform/platform';
import { pyRepr } from '../config/schema/python-repr';
import { pyStr } from '../util/python-str';
import { isTrue } from './support/config-values';
import { configModule } from './support/config-module';
import { readConfigValue } from './support/config-readers';
import { isContainer } from './support/is-container';
import { pyTruthy } from '../util/python-truthy';
import { type Module, type ModuleContext, ModuleError } from './module';
import { blockInfo, type MountEntry, mountFor } from '../platform/linux/mount-info';

/** The resize command for FSTYPE mounted at MOUNT from DEVICE, or undefined when kiln has none (btrfs: see below). */
export function resizeCommand(fstype: string, device: string, mount: string): string[] | undefined {
  if (fstype.startsWith('ext')) return ['resize2fs', device];
  if (fstype === 'xfs') return ['xfs_growfs', mount];
  if (fstype === 'btrfs') return ['btrfs', 'filesystem', 'resize', 'max', mount];
  return undefined;
}

/** lifecycle.Version.from_str of `btrfs --version`'s first line after its last 'v': int() of each dotted part. */
function btrfsVersion(out: string): number[] {
  const text = (out.split('\n')[0] as string).split('v').at(-1)?.trim() ?? '';
  return text.split('.').map((part) => {
    if (!/^\s*[+-]?\d+\s*$/.test(part))
      throw Object.assign(new ModuleError('resizefs', `invalid literal for int() with base 10: ${pyRepr(part)}`), {
        pythonName: 'ValueError',
      });
    return Number(part);
  });
}

/**
 * _resize_btrfs: `btrfs filesystem resize max MOUNT`, or MOUNT/.snapshots (snapper's rw subvolume) when MOUNT is
 * mounted read-only and has one; `--enqueue` after resize when btrfs-progs is 5.10 or newer (its version compared
 * numerically).
 */
export async function btrfsResizeCommand(platform: Platform, mount: MountEntry, at: string): Promise<string[]> {
  const readWrite = mount.options.split(',')[0] === 'rw';
  const snapshots = `${at}/.snapshots`;
  const target = !readWrite && (await platform.stat(snapshots))?.type === 'directory' ? snapshots : at;
  const [major = -1, minor = -1] = btrfsVersion((await platform.run(['btrfs', '--version'])).stdout);
  const enqueue = major > 5 || (major === 5 && minor >= 10);
  return ['btrfs', 'filesystem', 'resize', ...(enqueue ? ['--enqueue'] : []), 'max', target];
}

/**
 * maybe_get_writable_device_path's existence check: the device to resize, or undefined (logged) when it is not there:
 * at DEBUG in a container, else a WARNING.
 */
async function writableDevice(ctx: ModuleContext, source: string, mount: MountEntry, info: string) {
  if (source === 'overlayroot') {
    ctx.log.debug(`Not attempting to resize devpath '${source}': ${info}`);
    return undefined;
  }
  let device = source;
  if (source === '/dev/root' && !(await ctx.platform.exists(source)))
    device = (await blockInfo(ctx.platform, { devno: mount.devno }))?.device ?? source;
  else if (!source.startsWith('/dev/') && !(await ctx.platform.exists(source))) {
    device = `/dev/${source.replace(/^\/+/, '')}`;
    ctx.log.debug(`'${source}' doesn't appear to be a valid device path. Trying '${device}'`);
  }
  if (await ctx.platform.exists(device)) return device;
  if (await isContainer(ctx.platform))
    ctx.log.debug(`Device '${device}' did not exist in container. cannot resize: ${info}`);
  else ctx.log.warn(`Device '${device}' did not exist. cannot resize: ${info}`);
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
    const at = '/';
    const mount = await mountFor(ctx.platform, at);
    if (!mount) {
      ctx.log.warn(`Could not determine filesystem type of ${at}`);
      return;
    }
    if (mount.fstype === 'zfs') {
      ctx.log.debug('Skipping resizefs: root is zfs');
      return;
    }
    const info = `dev=${mount.source} mnt_point=${mount.mountpoint} path=${at}`;
    ctx.log.debug(`resize_info: ${info}`);
    const device = await writableDevice(ctx, mount.source, mount, info);
    if (!device) return;
    const cmd =
      mount.fstype === 'btrfs'
        ? await btrfsResizeCommand(ctx.platform, mount, at)
        : resizeCommand(mount.fstype, device, at);
    if (!cmd) {
      ctx.log.warn(`Not resizing unknown filesystem type ${mount.fstype} for ${at}`);
      return;
    }
    ctx.log.debug(`Resizing ${at} (${mount.fstype}) using ${cmd.join(' ')}`);
    if (noblock) {
      const quoted = cmd.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
      await ctx.platform.run(['/bin/sh', '-c', `(${quoted}) >/dev/null 2>&1 &`]);
      ctx.log.debug(`Resizing (via forking) root filesystem (type=${mount.fstype}, val=noblock)`);
      return;
    }
    // do_resize: the command's output captured (not in the output log); a failure logged, then raised.
    try {
      await ctx.platform.run(cmd);
    } catch (err) {
      ctx.log.warn(`Failed to resize filesystem (cmd=(${cmd.map((a) => pyRepr(a)).join(', ')}))`);
      throw err;
    }
    ctx.log.debug(`Resized root filesystem (type=${mount.fstype}, val=${pyStr(setting)})`);
  },
});
