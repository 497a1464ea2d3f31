// CreateUserPlugin: creates the configured user (or resets its password), loads its profile so it exists, adds it to
// the groups.
import { describeError } from '../util/errors';
import { PluginError, SHARED, type Plugin, type PluginContext, type PluginResult } from './plugin';

/** cloudbase-init's admin user name: the metadata's admin_username when given, else the `username` option. */
export function adminUserName(ctx: PluginContext): string {
  const meta = ctx.instance?.metadata;
  const fromMeta = meta && typeof meta.admin_username === 'string' ? meta.admin_username : undefined;
  const name = fromMeta ?? ctx.conf.str('username');
  if (!name)
    throw new PluginError('CreateUserPlugin', "no user name: set 'username' in [DEFAULT] of cloudbase-init.conf");
  return name;
}

export const createUserPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.windows.createuser.CreateUserPlugin',
  name: 'CreateUserPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const user = adminUserName(ctx);
    const injected = ctx.conf.bool('inject_user_password') ? ctx.instance?.adminPassword : undefined;
    const password = injected ?? ctx.randomPassword(ctx.conf.intValue('user_password_length'));
    ctx.secret(password);
    if (ctx.windows.userExists(user)) {
      ctx.log.info(`Setting password for existing user "${user}"`);
      ctx.windows.setUserPassword(user, password);
    } else {
      ctx.log.info(`Creating user "${user}" and setting password`);
      ctx.windows.createUser(user, password, {
        comment: 'Created by kiln (cloudbase-init)',
        passwordNeverExpires: true,
      });
      if (!ctx.windows.userExists(user))
        throw new PluginError('CreateUserPlugin', `user "${user}" was created but cannot be found afterwards`);
    }
    ctx.shared.set(SHARED.adminUser, user);
    ctx.shared.set(SHARED.adminPassword, password);
    // What follows only completes the user, as in cloudbase-init's createuser.py: a failure is logged and the plugin is
    // still done. Failing it would rerun it at every boot, each time with a new random password for the existing
    // user, while the one posted to the metadata service goes stale.
    if (ctx.windows.userProfilePath(user, false) === undefined) {
      // As cloudbase-init: a logon with the profile loaded creates the user's profile (home folder, registry hive).
      ctx.log.info(`Loading the user profile of "${user}" to create its home folder`);
      try {
        ctx.windows.loadUserProfile(user, password);
      } catch (err) {
        ctx.log.error(`Cannot create a user logon session for user: "${user}": ${describeError(err)}`);
      }
    }
    for (const group of ctx.conf.listValue('groups')) {
      try {
        ctx.windows.addUserToGroup(user, group);
      } catch (err) {
        // A missing group, or "Administrators" on a localized Windows ("Administratoren").
        ctx.log.error(`Cannot add user to group "${group}": ${describeError(err)}`);
      }
    }
    return { status: 'done', reboot: false };
  },
};
