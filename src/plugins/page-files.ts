// PageFilesPlugin: puts system-managed page files on the volumes named by page_file_volume_labels and _mount_points; a
// change needs a reboot.
import { volumeRootByLabel } from './ephemeral-disk';
import { PluginError, type Plugin } from './plugin';

const MEMORY_KEY = 'SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management';

export const pageFilesPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.pagefiles.PageFilesPlugin',
  name: 'PageFilesPlugin',
  stage: 'main',
  async execute(ctx) {
    const mountPoints = ctx.conf.listValue('page_file_volume_mount_points');
    const labels = ctx.conf.listValue('page_file_volume_labels');
    const byLabel = labels.map((label) => {
      const root = volumeRootByLabel(ctx, label);
      if (!root) throw new PluginError('PageFilesPlugin', `no volume labelled '${label}' for page_file_volume_labels`);
      return root;
    });
    const roots = [...byLabel, ...mountPoints];
    if (roots.length === 0) return { status: 'done', reboot: false };
    // "<path> 0 0" is a system-managed page file.
    const wanted = roots.map((m) => `${m.replace(/[\\/]+$/, '')}\\pagefile.sys 0 0`);
    const current = ctx.windows.regGet('HKLM', MEMORY_KEY, 'PagingFiles');
    const now = current?.type === 'REG_MULTI_SZ' ? current.data : [];
    if (now.length === wanted.length && now.every((v, i) => v.toLowerCase() === (wanted[i] as string).toLowerCase())) {
      ctx.log.info('Page files already set');
      return { status: 'done', reboot: false };
    }
    ctx.windows.regSet('HKLM', MEMORY_KEY, 'PagingFiles', { type: 'REG_MULTI_SZ', data: wanted });
    ctx.log.info(`Page files set to ${wanted.join('; ')}; a reboot applies them`);
    return { status: 'done', reboot: true };
  },
};
