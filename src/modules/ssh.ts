// cc_ssh: host keys (delete the image's, write given ones or generate per ssh_genkeytypes) and authorized keys for the default user and root.
import { hostname, userInfo } from 'node:os';
import type { Platform } from '../platform/platform';
import { DISABLE_USER_OPTS, setupUserKeys } from './authorized-keys';
import { cfgBool, cfgList, cfgString } from './config-values';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from './module';
import { generateOpenSshKey, type InProcessKeyType, isInProcessKeyType, type OpenSshKey, privateKeyFile, publicKeyLine, sha256Digest, sha256Fingerprint } from './openssh-key';
import { keygenReport, randomart } from './ssh-randomart';
import { endScreeningAhead, screenAhead, screenAwaited } from './screening-slots';
import { updateSshdConfig } from './sshd-config';
import { normalizeUsersGroups } from './users-config';

export const GENERATE_KEY_NAMES = ['rsa', 'dsa', 'ecdsa', 'ed25519'];
const keyFile = (type: string) => `/etc/ssh/ssh_host_${type}_key`;
const UNSUPPORTED = /^(ecdsa-sk|ed25519-sk)_(private|public|certificate)$/;

/** ssh_keys entry name → [file, mode]. */
function configKeyFile(key: string): [string, number] | undefined {
  const m = /^(rsa|dsa|ecdsa|ed25519)_(private|public|certificate)$/.exec(key);
  if (!m) return undefined;
  const base = keyFile(m[1] as string);
  return [m[2] === 'private' ? base : m[2] === 'public' ? `${base}.pub` : `${base}-cert.pub`, 0o600];
}

async function deleteHostKeys(ctx: ModuleContext): Promise<void> {
  let names: string[] = [];
  try {
    names = await ctx.platform.listDir('/etc/ssh');
  } catch {
    return;
  }
  for (const n of names) {
    if (!/^ssh_host_.*key.*$/.test(n)) continue;
    try {
      await ctx.platform.remove(`/etc/ssh/${n}`);
    } catch (err) {
      ctx.log.warn(`Failed deleting key file /etc/ssh/${n}: ${(err as Error).message}`);
    }
  }
}

async function writeGivenKeys(ctx: ModuleContext, given: Record<string, unknown>): Promise<void> {
  for (const [key, val] of Object.entries(given)) {
    const target = configKeyFile(key);
    if (!target) {
      ctx.log.warn(`Skipping ${UNSUPPORTED.test(key) ? 'unsupported' : 'unrecognized'} ssh_keys entry: "${key}"`);
      continue;
    }
    await ctx.platform.writeFile(target[0], typeof val === 'string' ? val : String(val), { mode: target[1] });
    if (key.includes('_certificate')) await updateSshdConfig(ctx.platform, { HostCertificate: target[0] });
  }
  for (const type of GENERATE_KEY_NAMES) {
    if (`${type}_public` in given || !(`${type}_private` in given)) continue;
    const priv = keyFile(type);
    // cloud-init derives the missing public half with ssh-keygen -y and tags it root@localhost.
    const r = await ctx.platform.run(['ssh-keygen', '-yf', priv], { allowFailure: true });
    if (r.code !== 0) {
      ctx.log.warn(`Failed generating a key for ${priv}.pub from ${priv}: ${r.stderr.trim()}`);
      continue;
    }
    await ctx.platform.writeFile(`${priv}.pub`, `${r.stdout.replace(/\n+$/, '')} root@localhost\n`, { mode: 0o644 });
  }
}

/** A key being made in-process, and the switch that abandons its search when it turns out not to be needed. */
interface KeyUnderWay {
  key: Promise<OpenSshKey>;
  stop: AbortController;
}

/** Keys started ahead of the ssh module's turn (by speculate or prepare), per platform, i.e. per process run. */
const started = new WeakMap<Platform, Map<InProcessKeyType, KeyUnderWay>>();

function keyTypes(cfg: CloudConfig): string[] {
  return cfgList(cfg, 'ssh_genkeytypes') ?? GENERATE_KEY_NAMES;
}

/** The in-process key of TYPE for this run: the one already under way, else a new one. Each is used once. */
function inProcessKey(platform: Platform, type: InProcessKeyType): Promise<OpenSshKey> {
  let keys = started.get(platform);
  if (!keys) started.set(platform, (keys = new Map()));
  let underWay = keys.get(type);
  if (!underWay) {
    const stop = new AbortController();
    underWay = { key: generateOpenSshKey(type, stop.signal), stop };
    // A key made ahead and then not needed (its file kept, say) must not surface as an unhandled rejection.
    underWay.key.catch(() => undefined);
    keys.set(type, underWay);
  }
  return underWay.key;
}

/** Abandons the key of TYPE started for PLATFORM, if any: its search stops queuing work for the thread pool. */
function dropKey(platform: Platform, type: InProcessKeyType): void {
  const keys = started.get(platform);
  keys?.get(type)?.stop.abort();
  keys?.delete(type);
}

/** ssh-keygen's default comment: the user it runs as (from the target's passwd) and the host name. */
function keygenComment(): string {
  let user = 'root';
  try {
    user = userInfo().username;
  } catch {
    /* the uid has no passwd entry: ssh-keygen would fail outright; root is what cloud-init runs as */
  }
  return `${user}@${hostname()}`;
}

async function writeInProcessKey(ctx: ModuleContext, type: InProcessKeyType, file: string, group: number | undefined, quiet: boolean): Promise<void> {
  const key = await inProcessKey(ctx.platform, type);
  // Used once: a later run in the same process (cloud-init single, say) must make a fresh key.
  started.get(ctx.platform)?.delete(type);
  const comment = keygenComment();
  const owner = group === undefined ? undefined : 'root:ssh_keys';
  // The same permissions sshd-keygen gives on systems with an ssh_keys group (RHEL family).
  await ctx.platform.writeFile(file, privateKeyFile(key, comment), { mode: group === undefined ? 0o600 : 0o640, ...(owner ? { owner } : {}) });
  await ctx.platform.writeFile(`${file}.pub`, publicKeyLine(key, comment), { mode: 0o644 });
  if (!quiet) {
    const art = randomart(sha256Digest(key.publicBlob), `${key.displayName} ${key.bits}`);
    await ctx.output(keygenReport(type, file, sha256Fingerprint(key.publicBlob), comment, art));
  }
}

async function runSshKeygen(ctx: ModuleContext, type: string, file: string, group: number | undefined, quiet: boolean): Promise<void> {
  const r = await ctx.platform.run(['ssh-keygen', '-t', type, '-N', '', '-f', file], { env: { LANG: 'C' }, allowFailure: true });
  if (r.code === 0) {
    if (!quiet) await ctx.output(r.stdout);
    if (group !== undefined) {
      await ctx.platform.run(['chgrp', 'ssh_keys', file], { allowFailure: true });
      await ctx.platform.run(['chmod', '0640', file], { allowFailure: true });
      await ctx.platform.run(['chmod', '0644', `${file}.pub`], { allowFailure: true });
    }
  } else if (r.code === 1 && r.stderr.toLowerCase().startsWith('unknown key')) {
    ctx.log.debug(`ssh-keygen: unknown key type '${type}'`);
  } else {
    throw new Error(r.stderr.trim() || `ssh-keygen exited with code ${r.code}`);
  }
}

/**
 * Host keys per ssh_genkeytypes. RSA, DSA, ECDSA and Ed25519 are made in-process on the thread pool, all at
 * once (RSA's prime search dominates a first boot otherwise); other types go to ssh-keygen. Files already
 * present are kept, as cloud-init keeps them.
 */
async function generateKeys(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
  screenAwaited();
  const types = keyTypes(cfg);
  const quiet = cfgBool(cfg, 'ssh_quiet_keygen', false);
  const group = await sshKeysGid(ctx);
  const missing: string[] = [];
  // A type listed twice is made once, as cloud-init's exists check before each ssh-keygen does.
  for (const type of new Set(types)) if (!(await ctx.platform.exists(keyFile(type)))) missing.push(type);
  for (const type of missing) if (isInProcessKeyType(type)) void inProcessKey(ctx.platform, type);
  for (const type of missing) {
    const file = keyFile(type);
    await ctx.platform.mkdir('/etc/ssh');
    try {
      if (isInProcessKeyType(type)) await writeInProcessKey(ctx, type, file, group, quiet);
      else await runSshKeygen(ctx, type, file, group, quiet);
    } catch (err) {
      const why = (err as Error).message;
      ctx.recoverable('WARNING', `Failed generating key type ${type} to file ${file}: ${why}`);
    }
  }
}

async function sshKeysGid(ctx: ModuleContext): Promise<number | undefined> {
  const text = (await ctx.platform.readTextIfExists('/etc/group')) ?? '';
  const row = text.split('\n').find((l) => l.startsWith('ssh_keys:'));
  return row ? Number(row.split(':')[2]) : undefined;
}

/** apply_credentials: the keys go to the default user; root gets them behind the disable_root options (or plain). */
async function applyCredentials(ctx: ModuleContext, keys: string[], user: string | undefined, disableRoot: boolean, disableRootOpts: string): Promise<void> {
  const unique = [...new Set(keys)];
  if (user) await setupUserKeys(ctx.platform, user, unique);
  const prefix = disableRoot ? disableRootOpts.replace(/\$USER/g, user ?? 'NONE').replace(/\$DISABLE_USER/g, 'root') : '';
  await setupUserKeys(ctx.platform, 'root', unique, prefix);
}

export const ssh: Module = {
  name: 'ssh',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  /** On an image's first boot, the default key types start before the config is read. */
  speculate(platform: Platform): void {
    screenAhead();
    for (const type of GENERATE_KEY_NAMES) if (isInProcessKeyType(type)) void inProcessKey(platform, type);
  },
  /**
   * Starts the in-process host keys as the stage begins, so their generation overlaps the modules before ssh;
   * keys under way that this config does not want are abandoned.
   */
  prepare(ctx: ModuleContext, cfg: CloudConfig): void {
    const given = cfg.ssh_keys !== undefined && cfg.ssh_keys !== null;
    const wanted = given ? [] : keyTypes(cfg).filter(isInProcessKeyType);
    for (const type of [...(started.get(ctx.platform)?.keys() ?? [])]) if (!wanted.includes(type)) dropKey(ctx.platform, type);
    const deleting = cfgBool(cfg, 'ssh_deletekeys', true);
    if (wanted.length > 0) screenAhead();
    for (const type of wanted) {
      // Without ssh_deletekeys an existing key is kept; the check is cheap next to the generation it may spare.
      if (deleting) void inProcessKey(ctx.platform, type);
      else void ctx.platform.exists(keyFile(type)).then((present) => (present ? dropKey(ctx.platform, type) : void inProcessKey(ctx.platform, type)), () => undefined);
    }
  },
  release(platform: Platform): void {
    for (const type of [...(started.get(platform)?.keys() ?? [])]) dropKey(platform, type);
    endScreeningAhead();
  },
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    if (cfgBool(cfg, 'ssh_deletekeys', true)) await deleteHostKeys(ctx);
    const given = cfg.ssh_keys;
    if (given !== undefined && given !== null) {
      if (typeof given !== 'object' || Array.isArray(given)) throw new ModuleError('ssh', `'ssh_keys' must be a mapping of <type>_private/_public/_certificate to key text`);
      await writeGivenKeys(ctx, given as Record<string, unknown>);
    } else {
      await generateKeys(ctx, cfg);
    }
    // Publishing host keys back to the datasource is a no-op for the sources kiln supports.
    try {
      const { defaultUser } = normalizeUsersGroups('ssh', cfg, ctx.log);
      const disableRoot = cfgBool(cfg, 'disable_root', true);
      const opts = cfgString(cfg, 'disable_root_opts') ?? DISABLE_USER_OPTS;
      const keys = cfgBool(cfg, 'allow_public_ssh_keys', true) ? [...(ctx.instance?.publicKeys ?? [])] : [];
      if (!cfgBool(cfg, 'allow_public_ssh_keys', true)) ctx.log.debug('Skipping import of publish SSH keys per config setting: allow_public_ssh_keys=False');
      const extra = cfg.ssh_authorized_keys;
      if (Array.isArray(extra)) keys.push(...extra.map(String));
      else if (typeof extra === 'string') keys.push(extra);
      await applyCredentials(ctx, keys, defaultUser, disableRoot, opts);
    } catch (err) {
      // cloud-init logs this at WARNING and goes on; a warning is a recoverable error.
      ctx.recoverable('WARNING', `Applying SSH credentials failed! ${(err as Error).message}`);
    }
  },
};
