// ExtendVolumesPlugin: every volume on a fixed disk (or those of volumes_to_extend) grown into the free space after its
// partition.
import { PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';
import { describeError } from '../util/errors';

/** cloudbase-init's volume index: the N of the volume's device '\Device\HarddiskVolumeN'. */
export function volumeIndex(device: string | undefined): number | undefined {
  const m = /(\d+)$/.exec(device ?? '');
  return m ? Number(m[1]) : undefined;
}

export const extendVolumesPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.extendvolumes.ExtendVolumesPlugin',
  name: 'ExtendVolumesPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const wanted = ctx.conf.list('volumes_to_extend')?.map((v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0)
        throw new PluginError(
          'ExtendVolumesPlugin',
          `volumes_to_extend: '${v}' is not a volume index (the N of \\Device\\HarddiskVolumeN)`,
        );
      return n;
    });
    const failures: string[] = [];
    for (const volume of ctx.windows.fixedVolumes()) {
      const index = volumeIndex(volume.device);
      if (wanted && wanted.length > 0 && (index === undefined || !wanted.includes(index))) {
        ctx.log.debug(`${volume.root} (volume ${index ?? '?'}) is not in volumes_to_extend`);
        continue;
      }
      try {
        const r = ctx.windows.extendVolume(volume.root);
        if (r.bytes > 0) ctx.log.info(`Extended ${volume.root} (volume ${index ?? '?'}) by ${r.bytes} bytes`);
        else ctx.log.debug(`${volume.root} not extended: ${r.reason ?? 'nothing to do'}`);
      } catch (err) {
        failures.push(`${volume.root}: ${describeError(err)}`);
      }
    }
    if (failures.length > 0) throw new PluginError('ExtendVolumesPlugin', `could not extend: ${failures.join('; ')}`);
    // As cloudbase-init: run at every boot, so a disk resized later is used at the next start.
    return { status: 'next-boot', reboot: false };
  },
};
