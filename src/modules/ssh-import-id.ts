// cc_ssh_import_id: imports SSH keys (lp:/gh: ids) for configured users by running ssh-import-id as each user.
import { pyRepr } from '../config/schema/python-repr';
import { CommandError } from '../util/command-error';
import { configModule } from './support/config-module';
import { readConfigValue } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { configuredUsers } from './support/configured-users';
import { whichInTarget } from './support/distro-facts';
import { readingUsers, usersReaders } from './support/users-readers';
import { ModuleError, type Module } from './module';

/** Whether KEY appears anywhere in the mapping VALUE (dicts, and dicts inside lists), as cloud-init searches. */
export function keyInNestedDict(value: object, key: string): boolean {
  for (const [k, v] of Object.entries(value)) {
    if (k === key) return true;
    if (isRecord(v) && keyInNestedDict(v, key)) return true;
    if (Array.isArray(v) && v.some((item) => isRecord(item) && keyInNestedDict(item, key))) return true;
  }
  return false;
}

/**
 * The command cloud-init runs for USER: sudo keeps https_proxy and runs ssh-import-id with the user's home; without
 * sudo, doas -u USER.
 */
export function sshImportIdCommand(user: string, ids: string[], via: 'sudo' | 'doas' = 'sudo'): string[] {
  return via === 'sudo'
    ? ['sudo', '--preserve-env=https_proxy', '-Hu', user, 'ssh-import-id', ...ids]
    : ['doas', '-u', user, 'ssh-import-id', ...ids];
}

/** The default user's ids: get_cfg_option_list's list, each id its str(). */
function defaultUserIds(value: unknown): string[] {
  return (readConfigValue('list', value) as unknown[]).map((id) => readConfigValue('str', id) as string);
}

/**
 * A user's ssh_import_id as handle reads it: util.uniq_merge (a string is its comma-separated ids), each id its
 * str(); what uniq_merge cannot read (a number, null) is upstream's "not correctly configured" user, who gets none.
 * The key stays, as upstream's search for it still finds it.
 */
function userIds(value: unknown): string[] {
  if (typeof value === 'string') return value.trim().split(',').filter(Boolean);
  if (Array.isArray(value)) return value.map((id) => readConfigValue('str', id) as string);
  return isRecord(value) ? Object.keys(value) : [];
}

export const sshImportIdModule: Module = readingUsers(
  configModule({
    name: 'ssh_import_id',
    stage: 'config',
    frequency: 'once-per-instance',
    distros: ['ubuntu', 'debian', 'cos', 'alpine'],
    activateBy: [],
    configKeys: { ssh_import_id: defaultUserIds, ...usersReaders({ ssh_import_id: userIds }) },
    async run(ctx, cfg): Promise<void> {
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
      // handle goes on past a user whose import fails (warning about each) and raises the first error at the end.
      let first: Error | undefined;
      for (const user of configuredUsers('ssh_import_id', cfg, ctx.log)) {
        // A user's settings merge the default user's from system_info, which the schema does not describe.
        const own = user.config.ssh_import_id;
        const ids = [
          ...new Set(user.isDefault ? (cfg.ssh_import_id ?? []) : Array.isArray(own) ? own.map(String) : []),
        ];
        if (ids.length === 0) continue;
        let err: Error | undefined;
        if (!known.has(user.name)) {
          // pwd.getpwnam's KeyError.
          err = Object.assign(new ModuleError('ssh_import_id', `getpwnam(): name not found: ${pyRepr(user.name)}`), {
            pythonName: 'KeyError',
          });
        } else {
          const via = (await whichInTarget(ctx.platform, 'sudo'))
            ? 'sudo'
            : (await whichInTarget(ctx.platform, 'doas'))
              ? 'doas'
              : undefined;
          if (via === undefined) {
            ctx.log.error('Neither sudo nor doas available! Unable to import SSH ids.');
            continue;
          }
          ctx.log.debug(`Importing SSH ids for user ${user.name}.`);
          const argv = sshImportIdCommand(user.name, ids, via);
          const r = await ctx.platform.run(argv, { allowFailure: true });
          if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
          if (r.code !== 0) {
            ctx.log.warn(`Failed to run command to import ${user.name} SSH ids`);
            // subp's ProcessExecutionError; the output went to the console (capture=False).
            err = new CommandError(`command '${argv.join(' ')}' exited with code ${r.code}`, { argv, code: r.code });
          }
        }
        if (err) {
          ctx.log.warn(`ssh-import-id failed for: ${user.name} ${pyRepr(ids)}`);
          first ??= err;
        }
      }
      if (first) throw first;
    },
  }),
);
