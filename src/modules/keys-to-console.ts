// cc_keys_to_console: the host keys' fingerprints and public keys on the console, as cloud-init's
// write-ssh-key-fingerprints helper prints them, done in-process: fingerprints come from the keys' own blobs
// (ssh-keygen only for a type kiln cannot describe), and syslog gets them through one logger call.
import { posix } from 'node:path';
import { configModule } from './support/config-module';
import { isRecord } from './support/config-shapes';
import { isFalse } from './support/config-values';
import type { Module, ModuleContext } from './module';
import { sshKeygenListLine } from '../keys/ssh-key-listing';

const SSH_DIR = '/etc/ssh';
const HOST_KEY_PUB = /^ssh_host_.*key\.pub$/;
const RULE = '#############################################################';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The RFC 3164 time logger puts before its tag ("Nov  2 09:04:24", local time). */
export function syslogTime(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, ' ')} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

interface HostKey {
  path: string;
  /** The .pub file's first line, the key itself. */
  line: string;
  type: string;
  text: string;
}

async function hostKeys(ctx: ModuleContext): Promise<HostKey[]> {
  const names = (await ctx.platform.listDir(SSH_DIR).catch(() => [])).filter((n) => HOST_KEY_PUB.test(n));
  const keys: HostKey[] = [];
  for (const name of names.sort()) {
    const path = posix.join(SSH_DIR, name);
    const text = await ctx.platform.readTextIfExists(path);
    if (text === undefined) continue;
    const line = text.split('\n')[0] ?? '';
    keys.push({ path, line, type: line.trim().split(/\s+/)[0] ?? '', text });
  }
  return keys;
}

/** ssh-keygen -l's line for KEY, from its blob when kiln can describe it. */
async function fingerprintLine(ctx: ModuleContext, key: HostKey): Promise<string> {
  const line = sshKeygenListLine(key.line);
  if (line !== undefined) return line;
  const r = await ctx.platform.run(['ssh-keygen', '-l', '-f', key.path], { allowFailure: true });
  return `${r.stdout}${r.stderr}`.trim();
}

/** Sends MESSAGES to syslog as `logger -p user.info -t cloud-init` does, when the target has a syslog socket. */
async function toSyslog(ctx: ModuleContext, messages: string[]): Promise<void> {
  if (messages.length === 0 || !(await ctx.platform.exists('/dev/log'))) return;
  const r = await ctx.platform.run(['logger', '-p', 'user.info', '-t', 'cloud-init'], {
    input: `${messages.join('\n')}\n`,
    allowFailure: true,
  });
  if (r.code !== 0)
    ctx.log.debug(`logger could not send the host key fingerprints to syslog: ${r.stderr.trim() || `exit ${r.code}`}`);
}

/**
 * ssh as the module reads it, `is_false(cfg.get("ssh", {}).get("emit_keys_to_console", True))`: of a mapping only
 * emit_keys_to_console, true unless false or one of is_false's words ('no', 'off', '0'); anything else as it is.
 */
function emitKeysSetting(ssh: unknown): unknown {
  return isRecord(ssh) ? { emit_keys_to_console: !isFalse(ssh.emit_keys_to_console ?? true) } : ssh;
}

export const keysToConsoleModule: Module = configModule({
  name: 'keys_to_console',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  // The blacklists by get_cfg_option_list (a string is a one-item list).
  configKeys: { ssh: emitKeysSetting, ssh_fp_console_blacklist: 'list', ssh_key_console_blacklist: 'list' },
  async run(ctx, cfg): Promise<void> {
    if (cfg.ssh?.emit_keys_to_console === false) {
      ctx.log.debug('Skipping module named keys_to_console, logging of SSH host keys disabled');
      return;
    }
    const fpBlacklist = new Set(cfg.ssh_fp_console_blacklist ?? []);
    // Nothing left out by default since 24.1 (22.4 kept ssh-dss keys off the console).
    const keyBlacklist = new Set(cfg.ssh_key_console_blacklist ?? []);
    const keys = await hostKeys(ctx);
    const listed = keys.filter((k) => !fpBlacklist.has(k.type));
    const messages: string[] = [];
    if (listed.length > 0) {
      messages.push(RULE, '-----BEGIN SSH HOST KEY FINGERPRINTS-----');
      for (const key of listed) messages.push(await fingerprintLine(ctx, key));
      messages.push('-----END SSH HOST KEY FINGERPRINTS-----', RULE);
    }
    await toSyslog(ctx, messages);
    // logger --stderr's form of each message (priority user.info = <14>), as the helper's console shows them.
    const stamp = syslogTime(new Date());
    const out = messages.map((m) => `<14>${stamp} cloud-init: ${m}\n`);
    const shown = keys.filter((k) => !keyBlacklist.has(k.type));
    if (shown.length > 0) {
      out.push('-----BEGIN SSH HOST KEY KEYS-----\n');
      for (const key of shown) out.push(key.text.endsWith('\n') || key.text === '' ? key.text : `${key.text}\n`);
      out.push('-----END SSH HOST KEY KEYS-----\n');
    }
    if (out.length > 0) await ctx.output(out.join(''));
  },
});
