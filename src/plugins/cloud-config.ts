// The #cloud-config subset cloudbase-init supports on Windows: write_files, set_timezone, set_hostname, ntp, groups, users, runcmd.
import { applyHostName } from './set-host-name';
import { PluginError, type PluginContext, type PluginResult } from './plugin';
import { combineResults, runScript } from './windows-script';
import { zlib } from '../util/on-demand-builtins';

const SUPPORTED = new Set(['write_files', 'set_timezone', 'set_hostname', 'hostname', 'ntp', 'groups', 'users', 'runcmd']);
const NTP_KEY = 'SYSTEM\\CurrentControlSet\\Services\\W32Time\\Parameters';

function fail(message: string): PluginError {
  return new PluginError('UserDataPlugin', `#cloud-config: ${message}`);
}

function decodeContent(content: unknown, encoding: unknown, index: number): Uint8Array {
  const text = content === undefined || content === null ? '' : String(content);
  const enc = typeof encoding === 'string' ? encoding.toLowerCase() : '';
  if (['b64', 'base64'].includes(enc)) return Buffer.from(text, 'base64');
  if (['gz', 'gzip'].includes(enc)) return zlib().gunzipSync(Buffer.from(text, 'latin1'));
  if (['gz+b64', 'gz+base64', 'gzip+b64', 'gzip+base64'].includes(enc)) return zlib().gunzipSync(Buffer.from(text, 'base64'));
  if (enc !== '' && enc !== 'text/plain') throw fail(`write_files[${index}]: unknown encoding '${encoding as string}'`);
  return Buffer.from(text, 'utf8');
}

function asList(v: unknown, key: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw fail(`'${key}' must be a list`);
  return v;
}

/** Applies a #cloud-config document; unsupported keys are warned about, as cloudbase-init does. */
export async function applyCloudConfig(ctx: PluginContext, cfg: Record<string, unknown>): Promise<PluginResult> {
  const results: PluginResult[] = [];
  for (const key of Object.keys(cfg)) if (!SUPPORTED.has(key)) ctx.log.warn(`#cloud-config: '${key}' is not supported on Windows; ignored`);

  asList(cfg.write_files, 'write_files').forEach((entry, i) => {
    if (!entry || typeof entry !== 'object') throw fail(`write_files[${i}] must be a mapping`);
    const e = entry as Record<string, unknown>;
    if (typeof e.path !== 'string' || e.path === '') throw fail(`write_files[${i}] has no 'path'`);
  });
  for (const [i, entry] of asList(cfg.write_files, 'write_files').entries()) {
    const e = entry as Record<string, unknown>;
    const data = decodeContent(e.content, e.encoding, i);
    await ctx.platform.writeFile(e.path as string, data, { append: e.append === true });
    ctx.log.info(`#cloud-config: wrote ${e.path as string} (${data.length} bytes)`);
  }

  if (cfg.set_timezone !== undefined) {
    if (typeof cfg.set_timezone !== 'string') throw fail("'set_timezone' must be a Windows time zone name");
    ctx.windows.setTimeZone(cfg.set_timezone);
  }

  const hostname = cfg.set_hostname ?? cfg.hostname;
  if (hostname !== undefined) {
    if (typeof hostname !== 'string') throw fail("'set_hostname' must be a string");
    const reboot = applyHostName(ctx.windows, ctx.log, hostname, ctx.conf.bool('netbios_host_name_compatibility') ?? true);
    results.push({ status: 'done', reboot });
  }

  if (cfg.ntp !== undefined) {
    const ntp = cfg.ntp as Record<string, unknown> | null;
    const servers = [...asList(ntp?.servers, 'ntp.servers'), ...asList(ntp?.pools, 'ntp.pools')].map(String);
    if (ntp?.enabled !== false && servers.length > 0) {
      // w32time's own format: space separated, 0x9 = SpecialInterval | Client.
      ctx.windows.regSet('HKLM', NTP_KEY, 'NtpServer', { type: 'REG_SZ', data: servers.map((s) => `${s},0x9`).join(' ') });
      ctx.windows.regSet('HKLM', NTP_KEY, 'Type', { type: 'REG_SZ', data: 'NTP' });
      ctx.log.info(`#cloud-config: NTP servers set to ${servers.join(', ')}`);
    }
  }

  const groups = asList(cfg.groups, 'groups');
  for (const g of groups) {
    if (typeof g === 'string') ctx.windows.ensureGroup(g);
    else if (g && typeof g === 'object') {
      for (const [name, members] of Object.entries(g as Record<string, unknown>)) {
        ctx.windows.ensureGroup(name);
        for (const m of asList(members, `groups.${name}`)) ctx.windows.addUserToGroup(String(m), name);
      }
    } else throw fail('groups entries must be names or {group: [members]}');
  }

  for (const [i, u] of asList(cfg.users, 'users').entries()) {
    if (u === 'default') continue;
    if (!u || typeof u !== 'object') throw fail(`users[${i}] must be a mapping`);
    const user = u as Record<string, unknown>;
    if (typeof user.name !== 'string') throw fail(`users[${i}] has no 'name'`);
    const password = typeof user.passwd === 'string' ? user.passwd : typeof user.plain_text_passwd === 'string' ? user.plain_text_passwd : undefined;
    if (password) ctx.secret(password);
    if (!ctx.windows.userExists(user.name)) {
      ctx.windows.createUser(user.name, password ?? ctx.randomPassword(ctx.conf.int('user_password_length') ?? 20), {
        ...(typeof user.gecos === 'string' ? { comment: user.gecos } : {}),
        passwordNeverExpires: user.expiredate === undefined,
      });
    } else if (password) ctx.windows.setUserPassword(user.name, password);
    const userGroups = typeof user.groups === 'string' ? user.groups.split(',').map((s) => s.trim()) : asList(user.groups, `users[${i}].groups`).map(String);
    for (const g of userGroups.filter((s) => s !== '')) {
      ctx.windows.ensureGroup(g);
      ctx.windows.addUserToGroup(user.name, g);
    }
  }

  const runcmd = asList(cfg.runcmd, 'runcmd');
  if (runcmd.length > 0) {
    const lines = runcmd.map((c, i) => {
      if (typeof c === 'string') return c;
      if (Array.isArray(c)) return c.map((a) => (/[\s"]/.test(String(a)) ? `"${String(a).replace(/"/g, '""')}"` : String(a))).join(' ');
      throw fail(`runcmd[${i}] must be a string or a list`);
    });
    const content = Buffer.from(`@echo off\r\n${lines.join('\r\n')}\r\n`, 'utf8');
    results.push(await runScript({ platform: ctx.platform, log: ctx.log, env: ctx.env }, { kind: 'cmd', name: 'cloud-config runcmd', content, persist: false, runAsLocalSystem: false }));
  }
  return combineResults(results);
}
