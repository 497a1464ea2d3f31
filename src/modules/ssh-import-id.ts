// cc_ssh_import_id: imports SSH keys (lp:/gh: ids) for configured users by running ssh-import-id as each user.
import { isRecord } from './support/config-shapes';
import { configuredUsers } from './support/configured-users';
import { whichInTarget } from './support/distro-facts';
import { ModuleError, type CloudConfig, type Module } from './module';

/** Whether KEY appears anywhere in the config (dicts, and dicts inside lists), as cloud-init searches. */
export function keyInNestedDict(cfg: Record<string, unknown>, key: string): boolean {
  for (const [k, v] of Object.entries(cfg)) {
    if (k === key) return true;
    if (isRecord(v) && keyInNestedDict(v, key)) return true;
    if (Array.isArray(v) && v.some((item) => isRecord(item) && keyInNestedDict(item, key))) return true;
  }
  return false;
}

/** The command cloud-init runs for USER: sudo keeps https_proxy, runs ssh-import-id with the user's home. */
export function sshImportIdCommand(user: string, ids: string[]): string[] {
  return ['sudo', '--preserve-env=https_proxy', '-Hu', user, 'ssh-import-id', ...ids];
}

function idList(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  return [...new Set(list.map(String))];
}

export const sshImportIdModule: Module = {
  name: 'ssh_import_id',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['ubuntu', 'debian', 'cos', 'alpine'],
  activateBy: [],
  async run(ctx, cfg: CloudConfig): Promise<void> {
    if (!keyInNestedDict(cfg, 'ssh_import_id')) {
      ctx.log.debug("Skipping module named ssh-import-id, no 'ssh_import_id' directives found.");
      return;
    }
    if (!(await whichInTarget(ctx.platform, 'ssh-import-id'))) {
      ctx.log.warn('ssh-import-id is not installed, but module ssh_import_id is configured. Skipping module.');
      return;
    }
    const passwd = (await ctx.platform.readTextIfExists('/etc/passwd')) ?? '';
    const known = new Set(passwd.split('\n').map((l) => l.split(':')[0]));
    const errors: string[] = [];
    for (const user of configuredUsers('ssh_import_id', cfg, ctx.log)) {
      const ids = user.isDefault ? idList(cfg.ssh_import_id) : idList(user.config.ssh_import_id);
      if (ids.length === 0) continue;
      if (!known.has(user.name)) {
        errors.push(`user ${user.name} does not exist in /etc/passwd`);
        continue;
      }
      ctx.log.debug(`Importing SSH ids for user ${user.name}.`);
      const r = await ctx.platform.run(sshImportIdCommand(user.name, ids), { allowFailure: true });
      if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
      if (r.code !== 0) errors.push(`ssh-import-id failed for: ${user.name} ${ids.join(' ')} (exit ${r.code})`);
    }
    if (errors.length) throw new ModuleError('ssh_import_id', errors.join('; '));
  },
};
