// SetUserPasswordPlugin: the admin user's password from the metadata (or a random one, posted encrypted where the cloud
// takes it), first_logon_behaviour.
import { adminUserName } from './create-user';
import { encryptPassword } from './encrypt-password';
import { SHARED, type Plugin, type PluginContext, type PluginResult } from './plugin';

/**
 * As cloudbase-init: the password is posted, encrypted with the first SSH key, where the service takes one and holds
 * none yet.
 */
async function postPassword(ctx: PluginContext, password: string): Promise<void> {
  const post = ctx.service?.postPassword;
  if (!post) {
    ctx.log.info(`The metadata service (${ctx.service?.classPath ?? 'none'}) does not take the password; not posted`);
    return;
  }
  if (await ctx.service?.isPasswordSet?.()) {
    ctx.log.info('The metadata service already holds a password; it cannot be updated there');
    return;
  }
  const key = ctx.service?.encryptionKey ? await ctx.service.encryptionKey() : ctx.instance?.publicKeys[0];
  if (!key) {
    ctx.log.info('No SSH public key available for password encryption; the password is not posted');
    return;
  }
  const stored = await post.call(ctx.service, encryptPassword(key, password));
  ctx.log.info(
    stored
      ? 'The encrypted password was posted to the metadata service'
      : 'The metadata service already holds a password (409); it cannot be updated',
  );
}

export const setUserPasswordPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.common.setuserpassword.SetUserPasswordPlugin',
  name: 'SetUserPasswordPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const user = adminUserName(ctx);
    if (!ctx.windows.userExists(user)) {
      ctx.log.warn(`User "${user}" does not exist; SetUserPasswordPlugin runs again at the next boot`);
      return { status: 'next-boot', reboot: false };
    }
    const injected = ctx.conf.bool('inject_user_password') ? ctx.instance?.adminPassword : undefined;
    let password: string;
    if (injected) {
      password = injected;
      ctx.windows.setUserPassword(user, password);
      ctx.log.info(`Password of user "${user}" set from the metadata`);
    } else {
      const created = ctx.shared.get(SHARED.adminPassword);
      if (typeof created === 'string' && ctx.shared.get(SHARED.adminUser) === user) {
        password = created;
        ctx.log.info(`Keeping the random password CreateUserPlugin gave "${user}"`);
      } else {
        password = ctx.randomPassword(ctx.conf.intValue('user_password_length'));
        ctx.windows.setUserPassword(user, password);
        ctx.log.info(`Random password set for user "${user}"`);
      }
    }
    ctx.secret(password);
    ctx.shared.set(SHARED.adminPassword, password);
    await postPassword(ctx, password);
    const behaviour = ctx.conf.strValue('first_logon_behaviour');
    if (behaviour === 'always' || (behaviour === 'clear_text_injected_only' && injected)) {
      ctx.windows.expireUserPassword(user);
      ctx.log.info(`User "${user}" must change the password at the first logon (first_logon_behaviour=${behaviour})`);
    }
    return { status: 'done', reboot: false };
  },
};
