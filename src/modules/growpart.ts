// cc_growpart: grows the partitions behind the listed mount points (default '/') to fill their disks, every boot.
import { growPartition, platformDiskIo } from '../devices/partition-grow';
import { isFalse } from './support/config-values';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from './module';
import { blockInfo, mountFor } from '../platform/linux/mount-info';

type Outcome = { entry: string; action: 'CHANGED' | 'NOCHANGE' | 'SKIPPED' | 'FAILED'; msg: string };

async function growWithTool(ctx: ModuleContext, disk: string, part: number): Promise<Outcome['action'] | string> {
  const r = await ctx.platform.run(['growpart', disk, String(part)], { env: { LANG: 'C' }, allowFailure: true });
  if (r.code === 1 && /NOCHANGE/.test(r.stdout)) return 'NOCHANGE';
  if (r.code !== 0) return `growpart ${disk} ${part} failed (${r.code}): ${(r.stderr || r.stdout).trim()}`;
  return 'CHANGED';
}

async function resizeOne(ctx: ModuleContext, mode: string, entry: string): Promise<Outcome> {
  let info: Awaited<ReturnType<typeof blockInfo>>;
  if (entry.startsWith('/dev/')) info = await blockInfo(ctx.platform, { path: entry });
  else {
    const m = await mountFor(ctx.platform, entry);
    if (!m) return { entry, action: 'SKIPPED', msg: 'unable to find mount point (no /proc/self/mountinfo entry)' };
    info = await blockInfo(ctx.platform, { devno: m.devno });
  }
  if (!info) return { entry, action: 'SKIPPED', msg: 'unable to find its block device in /sys' };
  if (!info.disk || !info.partition) return { entry, action: 'SKIPPED', msg: `device '${info.device}' not a partition` };
  const { disk, partition } = info;
  if (mode === 'auto') {
    const r = await growPartition(platformDiskIo(ctx.platform, disk), partition);
    if (r.status === 'changed') {
      // Tell the kernel about the new size of the (mounted) partition, as growpart does.
      const px = await ctx.platform.run(['partx', '--update', '--nr', String(partition), disk], { allowFailure: true });
      if (px.code !== 0) ctx.log.warn(`partx --update ${disk} ${partition} failed; the new size applies after a reboot: ${px.stderr.trim()}`);
      return { entry, action: 'CHANGED', msg: `changed (${disk}, ${partition}) from ${r.oldSectors * 512} to ${r.newSectors * 512}` };
    }
    if (r.status === 'nochange') return { entry, action: 'NOCHANGE', msg: `no change necessary (${disk}, ${partition}): ${r.reason}` };
    ctx.log.debug(`growpart: kiln cannot grow ${disk} ${partition} itself (${r.reason}); trying the growpart tool`);
  }
  const result = await growWithTool(ctx, disk, partition);
  if (result === 'CHANGED') return { entry, action: 'CHANGED', msg: `changed (${disk}, ${partition}) by growpart` };
  if (result === 'NOCHANGE') return { entry, action: 'NOCHANGE', msg: `no change necessary (${disk}, ${partition})` };
  return { entry, action: 'FAILED', msg: result };
}

export const growpart: Module = {
  name: 'growpart',
  stage: 'init',
  frequency: 'always',
  distros: 'all',
  activateBy: [],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    const my = cfg.growpart ?? { mode: 'auto', devices: ['/'], ignore_growroot_disabled: false };
    if (typeof my !== 'object' || my === null || Array.isArray(my)) {
      ctx.log.warn("'growpart' in config was not a dict");
      return;
    }
    const g = my as Record<string, unknown>;
    const modeRaw = g.mode ?? 'auto';
    if (isFalse(modeRaw) || modeRaw === 'off') {
      if (modeRaw !== 'off') ctx.log.warn(`DEPRECATED: growpart mode '${String(modeRaw)}' is deprecated. Use 'off' instead.`);
      ctx.log.debug(`growpart disabled: mode=${String(modeRaw)}`);
      return;
    }
    const mode = String(modeRaw);
    if (!['auto', 'growpart'].includes(mode)) throw new ModuleError('growpart', `growpart.mode '${mode}' is not supported on Linux (use auto, growpart or off)`);
    if (!g.ignore_growroot_disabled || isFalse(g.ignore_growroot_disabled)) {
      if (await ctx.platform.exists('/etc/growroot-disabled')) {
        ctx.log.debug('growpart disabled: /etc/growroot-disabled exists');
        return;
      }
    }
    const devices = Array.isArray(g.devices) ? g.devices.map(String) : typeof g.devices === 'string' ? [g.devices] : ['/'];
    if (devices.length === 0) {
      ctx.log.debug('growpart: empty device list');
      return;
    }
    const failures: string[] = [];
    for (const entry of devices) {
      const o = await resizeOne(ctx, mode, entry);
      if (o.action === 'CHANGED') ctx.log.info(`'${o.entry}' resized: ${o.msg}`);
      else ctx.log.debug(`'${o.entry}' ${o.action}: ${o.msg}`);
      if (o.action === 'FAILED') failures.push(`${entry}: ${o.msg}`);
    }
    if (failures.length > 0) throw new ModuleError('growpart', failures.join('; '));
  },
};
