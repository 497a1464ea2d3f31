// SetUserSSHPublicKeysPlugin: writes the metadata's public keys to the admin user's %USERPROFILE%\.ssh\authorized_keys.
import { adminUserName } from './create-user';
import { PluginError, type Plugin, type PluginContext, type PluginResult } from './plugin';

export const setUserSshPublicKeysPlugin: Plugin = {
  classPath: 'cloudbaseinit.plugins.common.sshpublickeys.SetUserSSHPublicKeysPlugin',
  name: 'SetUserSSHPublicKeysPlugin',
  stage: 'main',
  async execute(ctx: PluginContext): Promise<PluginResult> {
    const keys = ctx.instance?.publicKeys ?? [];
    if (keys.length === 0) {
      ctx.log.info('The metadata has no public keys');
      return { status: 'done', reboot: false };
    }
    const user = adminUserName(ctx);
    const home = ctx.windows.userProfilePath(user, true);
    if (!home)
      throw new PluginError(
        'SetUserSSHPublicKeysPlugin',
        `user "${user}" does not exist (CreateUserPlugin runs before this plugin in the plugins list?)`,
      );
    const path = `${home.replace(/[\\/]+$/, '')}\\.ssh\\authorized_keys`;
    await ctx.platform.writeFile(path, `${keys.map((k) => k.trim()).join('\n')}\n`);
    ctx.log.info(`Wrote ${keys.length} public key(s) to ${path}`);
    return { status: 'done', reboot: false };
  },
};
