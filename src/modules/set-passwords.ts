// cc_set_passwords: chpasswd users/list (plain text hashed by the distro's chpasswd), random passwords to the console,
// expiry, ssh_pwauth.
import { randomInt } from 'node:crypto';
import { accountWriterSetting } from '../platform/linux/accounts/account-writer-setting';
import { distroOpsFor } from '../platform/linux/distro/detect-distro';
import type { DistroOps } from '../platform/linux/distro/distro';
import { cfgBool, cfgString, isFalse, isTrue } from './support/config-values';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from './module';
import { updateSshdConfig } from './support/sshd-config';
import { usesSystemd } from './support/distro-facts';
import { serviceCommand } from './support/service-control';
import { normalizeUsersGroups } from './support/users-config';
import { describeError } from '../util/errors';

/** Letters and digits without the look-alikes l, o, L, O, I, 0 and 1. */
const PW_SET = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789']
  .filter((c) => !'loLOI01'.includes(c))
  .join('');
const HASHED = /^\$(1|2a|2y|5|6)(\$.+){2}/;

export function randUserPassword(len = 20): string {
  let s = '';
  for (let i = 0; i < len; i++) s += PW_SET[randomInt(PW_SET.length)];
  return s;
}

function usersByType(users: unknown[], type: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [i, item] of users.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw new ModuleError('set_passwords', `chpasswd.users[${i}] must be a mapping with 'name'`);
    const u = item as Record<string, unknown>;
    if (typeof u.name !== 'string') throw new ModuleError('set_passwords', `chpasswd.users[${i}] has no 'name'`);
    if ((u.type ?? 'hash') === type) out.push([u.name, u.password === undefined ? 'RANDOM' : String(u.password)]);
  }
  return out;
}

/** Writes TEXT to the console when the target has one (cloud-init's multi_log with no stdout fallback). */
async function toConsole(ctx: ModuleContext, text: string): Promise<boolean> {
  // A sandbox or image root's /dev/console would be the host's console: only the running system's is used.
  if (ctx.platform.root !== '/') return false;
  const r = await ctx.platform.run(['/bin/sh', '-c', 'test -c /dev/console && cat > /dev/console'], {
    input: text,
    allowFailure: true,
    secrets: [text],
  });
  return r.code === 0;
}

/** handle_ssh_pwauth: PasswordAuthentication yes/no in sshd_config, and restart sshd when it is running. */
async function handleSshPwauth(ctx: ModuleContext, ops: DistroOps, cfg: CloudConfig): Promise<void> {
  const pwAuth = cfg.ssh_pwauth;
  let value: string;
  if (typeof pwAuth === 'string')
    ctx.log.warn(
      "DEPRECATION: The 'ssh_pwauth' config key should be set to a boolean value. The string format is deprecated and will be removed in a future version of cloud-init.",
    );
  if (isTrue(pwAuth)) value = 'yes';
  else if (isFalse(pwAuth)) value = 'no';
  else {
    if (pwAuth === undefined || pwAuth === null || String(pwAuth).toLowerCase() === 'unchanged')
      ctx.log.debug(`Leaving SSH config 'PasswordAuthentication' unchanged. ssh_pwauth=${String(pwAuth)}`);
    else
      ctx.log.warn(
        `Leaving SSH config 'PasswordAuthentication' unchanged. Unrecognized value: ssh_pwauth=${String(pwAuth)}`,
      );
    return;
  }
  const changed = await updateSshdConfig(ctx.platform, { PasswordAuthentication: value });
  if (changed.length === 0) {
    ctx.log.debug('No need to restart SSH service, PasswordAuthentication not updated.');
    return;
  }
  const sysInfo = cfg.system_info;
  const fromCfg =
    sysInfo && typeof sysInfo === 'object' && !Array.isArray(sysInfo)
      ? cfgString(sysInfo as Record<string, unknown>, 'ssh_svcname')
      : undefined;
  const service = fromCfg ?? ops.serviceName('ssh');
  // Only a running sshd is restarted; at image-build time (a --root that is not '/') nothing runs.
  if (ctx.platform.root !== '/') {
    ctx.log.debug('Not restarting SSH service: the target is not the running system.');
    return;
  }
  if (await usesSystemd(ctx.platform)) {
    // 25.1: under systemd only a running sshd is restarted (ignoring its dependencies: this runs before sshd.service).
    const state = await ctx.platform.run(['systemctl', 'show', '--property', 'ActiveState', '--value', service], {
      allowFailure: true,
    });
    if (['active', 'activating', 'reloading'].includes(state.stdout.trim().toLowerCase()))
      await restartSshDaemon(ctx, ['systemctl', 'restart', service, '--job-mode=ignore-dependencies']);
    else
      ctx.log.debug(
        `Writing config 'ssh_pwauth: ${String(pwAuth)}'. SSH service '${service}' will not be restarted because it is not running.`,
      );
    return;
  }
  // Without systemd, 25.1 restarts it through the distro's service tool whatever its state.
  await restartSshDaemon(ctx, await serviceCommand(ctx, 'restart', service));
}

/** 25.1's _restart_ssh_daemon: a failure is a warning that the setting may not be applied, not a module failure. */
async function restartSshDaemon(ctx: ModuleContext, argv: string[]): Promise<void> {
  const r = await ctx.platform.run(argv, { allowFailure: true });
  if (r.code === 0) {
    ctx.log.debug('Restarted the SSH daemon.');
    return;
  }
  const msg = `'ssh_pwauth' configuration may not be applied. Cloud-init was unable to restart SSH daemon due to error: 'command ${argv.join(' ')} exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}'`;
  ctx.log.warn(msg);
  ctx.recoverable('WARNING', msg);
}

export const setPasswords: Module = {
  name: 'set_passwords',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    const ops = await distroOpsFor(ctx.platform, ctx.distro, { accountWriter: accountWriterSetting(cfg) });
    const password = cfgString(cfg, 'password');
    let expire = true;
    let plist: string[] = [];
    let usersList: unknown[] = [];
    const ch = cfg.chpasswd;
    if (ch !== undefined && ch !== null) {
      if (typeof ch !== 'object' || Array.isArray(ch))
        throw new ModuleError('set_passwords', "'chpasswd' must be a mapping (users, list, expire)");
      const chfg = ch as Record<string, unknown>;
      if (chfg.users !== undefined && chfg.users !== null) {
        if (!Array.isArray(chfg.users)) throw new ModuleError('set_passwords', "'chpasswd.users' must be a list");
        usersList = chfg.users;
      }
      if (chfg.list) {
        ctx.log.warn("DEPRECATION: key 'lists' is now deprecated. Use 'users'.");
        if (Array.isArray(chfg.list)) plist = chfg.list.map(String);
        else if (typeof chfg.list === 'string') plist = chfg.list.split(/\r?\n/).filter((l) => l !== '');
      }
      expire = cfgBool(chfg, 'expire', true);
    }
    if (usersList.length === 0 && plist.length === 0 && password) {
      const { defaultUser } = normalizeUsersGroups('set_passwords', cfg, ctx.log);
      if (defaultUser) plist = [`${defaultUser}:${password}`];
      else ctx.log.warn('No default or defined user to change password for.');
    }
    const errors: string[] = [];
    if (plist.length > 0 || usersList.length > 0) {
      const plain = usersByType(usersList, 'text');
      const hashed = usersByType(usersList, 'hash');
      const randlist: string[] = [];
      for (const [user] of usersByType(usersList, 'RANDOM')) {
        const p = randUserPassword();
        plain.push([user, p]);
        randlist.push(`${user}:${p}`);
      }
      for (const [i, line] of plist.entries()) {
        const sep = line.indexOf(':');
        if (sep < 0) throw new ModuleError('set_passwords', `chpasswd.list[${i}] is not 'user:password'`);
        const u = line.slice(0, sep);
        let p = line.slice(sep + 1);
        if (HASHED.test(p) && !p.includes(':')) hashed.push([u, p]);
        else {
          if (p === 'R' || p === 'RANDOM') {
            p = randUserPassword();
            randlist.push(`${u}:${p}`);
          }
          plain.push([u, p]);
        }
      }
      if (plain.length > 0) {
        ctx.log.debug(`Changing password for ${JSON.stringify(plain.map(([u]) => u))}:`);
        try {
          // As cloud-init: the distro's chpasswd hashes the text with the distro's default method.
          await ops.setPasswords(
            ctx.platform,
            plain.map(([user, p]) => ({ user, password: p })),
            false,
          );
        } catch (err) {
          errors.push(
            `Failed to set passwords with chpasswd for ${plain.map(([u]) => u).join(', ')}: ${describeError(err)}`,
          );
        }
      }
      if (hashed.length > 0) {
        ctx.log.debug(`Setting hashed password for ${JSON.stringify(hashed.map(([u]) => u))}:`);
        try {
          await ops.setPasswords(
            ctx.platform,
            hashed.map(([user, p]) => ({ user, password: p })),
            true,
          );
        } catch (err) {
          errors.push(
            `Failed to set hashed passwords with chpasswd for ${hashed.map(([u]) => u).join(', ')}: ${describeError(err)}`,
          );
        }
      }
      if (randlist.length > 0) {
        const blurb = `Set the following 'random' passwords\n\n${randlist.join('\n')}\n`;
        // Like cloud-init: console only, never the log. Without a console the text goes to the output log.
        if (!(await toConsole(ctx, blurb))) await ctx.output(blurb);
      }
      if (expire) {
        for (const u of [...plain.map(([x]) => x), ...hashed.map(([x]) => x)]) {
          try {
            await ops.expirePassword(ctx.platform, u);
          } catch (err) {
            errors.push(`Failed to set 'expire' for ${u}: ${describeError(err)}`);
          }
        }
      }
    }
    await handleSshPwauth(ctx, ops, cfg);
    if (errors.length > 0) throw new ModuleError('set_passwords', `chpasswd: ${errors.join('; ')}`);
  },
};
