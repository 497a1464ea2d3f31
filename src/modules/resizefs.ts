// cc_resizefs: grows the root filesystem (ext2/3/4, xfs, btrfs) to fill its now larger partition, every boot.
import { isFalse, isTrue } from './support/config-values';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from './module';
import { blockInfo, mountFor } from '../platform/linux/mount-info';

/** The resize command for FSTYPE mounted at MOUNT from DEVICE, or undefined when kiln has none. */
export function resizeCommand(fstype: string, device: string, mount: string): string[] | undefined {
  if (/^ext[234]$/.test(fstype)) return ['resize2fs', device];
  if (fstype === 'xfs') return ['xfs_growfs', mount];
  if (fstype === 'btrfs') return ['btrfs', 'filesystem', 'resize', 'max', mount];
  return undefined;
}

export const resizefs: Module = {
  name: 'resizefs',
  stage: 'init',
  frequency: 'always',
  distros: 'all',
  activateBy: [],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    const raw = cfg.resize_rootfs ?? true;
    if (isFalse(raw)) {
      ctx.log.debug('Skipping module named resizefs, resizing disabled');
      return;
    }
    const noblock = raw === 'noblock';
    if (!noblock && !isTrue(raw)) throw new ModuleError('resizefs', `resize_rootfs must be true, false or 'noblock', got '${String(raw)}'`);
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
    ctx.log.debug(`Resized root filesystem (type=${mount.fstype}, val=${String(raw)})`);
  },
};
