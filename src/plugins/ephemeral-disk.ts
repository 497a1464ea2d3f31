// EphemeralDiskPlugin: finds the ephemeral (temporary) disk by label or mount point and leaves the data loss warning on
// it.
import { PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';

/** What cloudbase-init writes when the metadata gives no text of its own. */
export const DEFAULT_DATA_LOSS_WARNING = [
  'WARNING: THIS IS A TEMPORARY DISK.',
  '',
  'Any data stored on this drive is SUBJECT TO LOSS and THERE IS NO WAY TO RECOVER IT.',
  '',
  'Please do not use this disk for storing any personal or application data.',
  '',
].join('\r\n');

/** The root of the volume labelled LABEL ('D:\\'), or undefined. Labels compare without case, as Windows shows them. */
export function volumeRootByLabel(ctx: PluginContext, label: string): string | undefined {
  return ctx.windows.volumes().find((v) => v.label.toLowerCase() === label.toLowerCase())?.root;
}

export const ephemeralDiskPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.common.ephemeraldisk.EphemeralDiskPlugin',
  name: 'EphemeralDiskPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const label = ctx.conf.str('ephemeral_disk_volume_label');
    const mountPoint = ctx.conf.str('ephemeral_disk_volume_mount_point');
    if (!label && !mountPoint) return { status: 'done', reboot: false };
    const root = mountPoint ?? volumeRootByLabel(ctx, label as string);
    if (!root) {
      const seen =
        ctx.windows
          .volumes()
          .map((v) => `${v.root} '${v.label}'`)
          .join(', ') || 'none';
      throw new PluginError('EphemeralDiskPlugin', `no volume labelled '${label as string}' (volumes: ${seen})`);
    }
    ctx.log.info(`Ephemeral disk: ${root}`);
    const warning = ctx.conf.str('ephemeral_disk_data_loss_warning_path');
    if (warning) {
      const meta = ctx.instance?.metadata.ephemeral_disk_data_loss_warning;
      const path = `${root.replace(/[\\/]+$/, '')}\\${warning.replace(/^[\\/]+/, '')}`;
      await ctx.platform.writeFile(path, typeof meta === 'string' ? meta : DEFAULT_DATA_LOSS_WARNING);
      ctx.log.info(`Wrote the data loss warning to ${path}`);
    }
    return { status: 'done', reboot: false };
  },
};
