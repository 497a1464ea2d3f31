// BCDConfigPlugin: a unique boot disk id (set_unique_boot_disk_id) with the boot entry moved to the boot partition, and
// auto recovery.
import type { Plugin, PluginContext } from './plugin';

/** Where setup records the system partition's NT device ('\Device\HarddiskVolume1'). */
const SETUP_KEY = 'SYSTEM\\Setup';

/**
 * As cloudbase-init: only when one volume is both the boot volume (Windows) and the system volume (the boot
 * files), {current}'s device and osdevice become 'boot' (so they survive the new id), then the disk gets a new
 * MBR signature or GPT GUID, against disk signature collisions between VMs made from the same image.
 */
async function setUniqueBootDiskId(ctx: PluginContext, bcdedit: string): Promise<void> {
  const systemDrive = `${(ctx.env.SystemDrive ?? 'C:').replace(/\\$/, '')}\\`;
  const systemPartition = ctx.windows.regGet('HKLM', SETUP_KEY, 'SystemPartition');
  const bootDevice = ctx.windows.fixedVolumes().find((v) => v.root.toLowerCase() === systemDrive.toLowerCase())?.device;
  if (
    systemPartition?.type !== 'REG_SZ' ||
    !bootDevice ||
    systemPartition.data.toLowerCase() !== bootDevice.toLowerCase()
  ) {
    ctx.log.info(
      `set_unique_boot_disk_id: the boot volume ${systemDrive} (${bootDevice ?? '?'}) is not also the system volume (${systemPartition?.type === 'REG_SZ' ? systemPartition.data : '?'}); disk id left alone`,
    );
    return;
  }
  const disk = ctx.windows.volumeDiskNumber(systemDrive);
  if (disk === undefined) {
    ctx.log.warn(`set_unique_boot_disk_id: ${systemDrive} does not lie on a single disk; disk id left alone`);
    return;
  }
  ctx.log.info('Configuring the boot device');
  await ctx.platform.run([bcdedit, '/set', '{current}', 'device', 'boot']);
  await ctx.platform.run([bcdedit, '/set', '{current}', 'osdevice', 'boot']);
  ctx.windows.setUniqueDiskId(disk);
}

export const bcdConfigPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.bootconfig.BCDConfigPlugin',
  name: 'BCDConfigPlugin',
  stage: 'main',
  async execute(ctx) {
    const bcdedit = ctx.platform.hostPath('Windows\\System32\\bcdedit.exe');
    if (ctx.conf.boolValue('set_unique_boot_disk_id')) await setUniqueBootDiskId(ctx, bcdedit);
    const recovery = ctx.conf.boolValue('bcd_enable_auto_recovery');
    await ctx.platform.run([bcdedit, '/set', '{current}', 'recoveryenabled', recovery ? 'Yes' : 'No']);
    ctx.log.info(`Automatic recovery ${recovery ? 'enabled' : 'disabled'}`);
    return { status: 'done', reboot: false };
  },
};
