// The #cloud-config subset cloudbase-init supports on Windows: write_files, set_timezone/timezone,
// set_hostname/hostname, ntp, groups, users, runcmd.
import { applyHostName } from './set-host-name';
import { PluginError, type PluginContext, type PluginResult } from './plugin';
import { setNtpPeers } from './ntp-peers';
import { runScript } from './windows-script';
import { describeError } from '../util/errors';
import { findWindows } from 'windows-iana';
import { zlib } from '../util/on-demand-builtins';

function fail(message: string): PluginError {
  return new PluginError('UserDataPlugin', `#cloud-config: ${message}`);
}

function decodeContent(content: unknown, encoding: unknown, index: number): Uint8Array {
  const text = content === undefined || content === null ? '' : String(content);
  const enc = typeof encoding === 'string' ? encoding.toLowerCase() : '';
  if (['b64', 'base64'].includes(enc)) return Buffer.from(text, 'base64');
  if (['gz', 'gzip'].includes(enc)) return zlib().gunzipSync(Buffer.from(text, 'latin1'));
  if (['gz+b64', 'gz+base64', 'gzip+b64', 'gzip+base64'].includes(enc))
    return zlib().gunzipSync(Buffer.from(text, 'base64'));
  if (enc !== '' && enc !== 'text/plain') throw fail(`write_files[${index}]: unknown encoding '${encoding as string}'`);
  return Buffer.from(text, 'utf8');
}

function asList(v: unknown, key: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw fail(`'${key}' must be a list`);
  return v;
}

/**
 * The Windows time zone for NAME: an IANA name (`Europe/Berlin`, what cloudbase-init's set_timezone takes) through
 * CLDR's windowsZones table, as cloudbase-init's tzlocal table maps it; anything else is taken as a Windows zone name
 * (`W. Europe Standard Time`), which kiln accepts too.
 */
function windowsTimeZone(name: string): string {
  return findWindows(name)[0] ?? name;
}

/** One cloud-config key's handler: true when what it did needs a reboot. */
type KeyHandler = (ctx: PluginContext, value: unknown, key: string) => Promise<boolean>;

async function writeFiles(ctx: PluginContext, value: unknown): Promise<boolean> {
  const entries = asList(value, 'write_files');
  entries.forEach((entry, i) => {
    if (!entry || typeof entry !== 'object') throw fail(`write_files[${i}] must be a mapping`);
    const e = entry as Record<string, unknown>;
    if (typeof e.path !== 'string' || e.path === '') throw fail(`write_files[${i}] has no 'path'`);
  });
  for (const [i, entry] of entries.entries()) {
    const e = entry as Record<string, unknown>;
    const data = decodeContent(e.content, e.encoding, i);
    await ctx.platform.writeFile(e.path as string, data, { append: e.append === true });
    ctx.log.info(`#cloud-config: wrote ${e.path as string} (${data.length} bytes)`);
  }
  return false;
}

async function setTimeZone(ctx: PluginContext, value: unknown, key: string): Promise<boolean> {
  if (typeof value !== 'string' || value === '')
    throw fail(`'${key}' must be a time zone name (IANA, such as Europe/Berlin, or Windows)`);
  const zone = windowsTimeZone(value);
  ctx.log.info(`#cloud-config: changing the time zone to ${value}${zone === value ? '' : ` (Windows: ${zone})`}`);
  ctx.windows.setTimeZone(zone);
  return false;
}

async function setHostName(ctx: PluginContext, value: unknown, key: string): Promise<boolean> {
  if (typeof value !== 'string') throw fail(`'${key}' must be a string`);
  return applyHostName(ctx.windows, ctx.log, value, ctx.conf.boolValue('netbios_host_name_compatibility'));
}

async function setNtp(ctx: PluginContext, value: unknown): Promise<boolean> {
  const ntp = value as Record<string, unknown> | null;
  const servers = [...asList(ntp?.servers, 'ntp.servers'), ...asList(ntp?.pools, 'ntp.pools')].map(String);
  if (ntp?.enabled !== false && servers.length > 0) {
    // As cloudbase-init's SetNtpPlugin: w32tm itself, which also has the service reread its configuration.
    await setNtpPeers(ctx, servers);
    ctx.log.info(`#cloud-config: NTP servers set to ${servers.join(', ')}`);
  }
  return false;
}

async function addGroups(ctx: PluginContext, value: unknown): Promise<boolean> {
  for (const g of asList(value, 'groups')) {
    if (typeof g === 'string') ctx.windows.ensureGroup(g);
    else if (g && typeof g === 'object') {
      for (const [name, members] of Object.entries(g as Record<string, unknown>)) {
        ctx.windows.ensureGroup(name);
        for (const m of asList(members, `groups.${name}`)) ctx.windows.addUserToGroup(String(m), name);
      }
    } else throw fail('groups entries must be names or {group: [members]}');
  }
  return false;
}

async function addUsers(ctx: PluginContext, value: unknown): Promise<boolean> {
  for (const [i, u] of asList(value, 'users').entries()) {
    if (u === 'default') continue;
    if (!u || typeof u !== 'object') throw fail(`users[${i}] must be a mapping`);
    const user = u as Record<string, unknown>;
    if (typeof user.name !== 'string') throw fail(`users[${i}] has no 'name'`);
    const password =
      typeof user.passwd === 'string'
        ? user.passwd
        : typeof user.plain_text_passwd === 'string'
          ? user.plain_text_passwd
          : undefined;
    if (password) ctx.secret(password);
    if (!ctx.windows.userExists(user.name)) {
      ctx.windows.createUser(user.name, password ?? ctx.randomPassword(ctx.conf.intValue('user_password_length')), {
        ...(typeof user.gecos === 'string' ? { comment: user.gecos } : {}),
        passwordNeverExpires: user.expiredate === undefined,
      });
    } else if (password) ctx.windows.setUserPassword(user.name, password);
    const userGroups =
      typeof user.groups === 'string'
        ? user.groups.split(',').map((s) => s.trim())
        : asList(user.groups, `users[${i}].groups`).map(String);
    for (const g of userGroups.filter((s) => s !== '')) {
      ctx.windows.ensureGroup(g);
      ctx.windows.addUserToGroup(user.name, g);
    }
  }
  return false;
}

async function runCommands(ctx: PluginContext, value: unknown): Promise<boolean> {
  const runcmd = asList(value, 'runcmd');
  if (runcmd.length === 0) return false;
  const lines = runcmd.map((c, i) => {
    if (typeof c === 'string') return c;
    if (Array.isArray(c))
      return c.map((a) => (/[\s"]/.test(String(a)) ? `"${String(a).replace(/"/g, '""')}"` : String(a))).join(' ');
    throw fail(`runcmd[${i}] must be a string or a list`);
  });
  const content = Buffer.from(`@echo off\r\n${lines.join('\r\n')}\r\n`, 'utf8');
  // As cloudbase-init's RunCmdPlugin: of the script's exit code only its reboot request counts.
  return (
    await runScript(
      { platform: ctx.platform, log: ctx.log, env: ctx.env },
      { kind: 'cmd', name: 'cloud-config runcmd', content, persist: false, runAsLocalSystem: false },
    )
  ).reboot;
}

/** cloudbase-init's cloud-config plugins, in the order its executor runs them (cloudconfigplugins/factory.py). */
const HANDLERS: ReadonlyArray<readonly [key: string, handler: KeyHandler]> = [
  ['write_files', writeFiles],
  ['set_timezone', setTimeZone],
  ['timezone', setTimeZone],
  ['set_hostname', setHostName],
  ['hostname', setHostName],
  ['ntp', setNtp],
  ['groups', addGroups],
  ['users', addUsers],
  ['runcmd', runCommands],
];

/**
 * Applies a #cloud-config document as cloudbase-init's CloudConfigPluginExecutor: each supported key in its order,
 * a key that fails is logged and the others still run, an unsupported key is warned about; when a key needs a
 * reboot the result is 1003's (reboot, and run the user data again at the next boot).
 */
export async function applyCloudConfig(ctx: PluginContext, cfg: Record<string, unknown>): Promise<PluginResult> {
  const supported = new Set(HANDLERS.map(([key]) => key));
  for (const key of Object.keys(cfg))
    if (!supported.has(key)) ctx.log.warn(`#cloud-config: '${key}' is not supported on Windows; ignored`);
  let reboot = false;
  for (const [key, handler] of HANDLERS) {
    if (!(key in cfg)) continue;
    try {
      if (await handler(ctx, cfg[key], key)) reboot = true;
    } catch (err) {
      ctx.log.error(`#cloud-config: processing '${key}' failed: ${describeError(err)}`);
    }
  }
  return reboot ? { status: 'next-boot', reboot: true } : { status: 'done', reboot: false };
}
