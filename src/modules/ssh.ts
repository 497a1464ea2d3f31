// cc_ssh: host keys (delete the image's, write given ones or generate per ssh_genkeytypes) and authorized keys for the
// default user and root.
import type { Platform, RunResult } from '../platform/platform';
import { DISABLE_USER_OPTS, setupUserKeys } from './support/authorized-keys';
import { HOST_KEY_PUBLISH_BLACKLIST, publicHostKeys } from './support/public-host-keys';
import { configModule } from './support/config-module';
import { isMapping, OwnParser, readConfigValue } from './support/config-readers';
import { type Module, type ModuleContext, ModuleError } from './module';
import { sha256Digest, sha256Fingerprint } from '../keys/fingerprint';
import { generateHostKey } from '../keys/generate-host-key';
import { type HostKeyType, isHostKeyType, type OpenSshKey } from '../keys/openssh-key';
import { privateKeyFile, publicKeyLine } from '../keys/openssh-key-files';
import { keygenReport, randomart } from '../keys/ssh-randomart';
import { updateSshdConfig } from './support/sshd-config';
import { normalizeUsersGroups } from './support/users-config';
import { readingUsers, usersReaders } from './support/users-readers';
import { describeError } from '../util/errors';
import { pyTruthy } from '../util/python-truthy';

/**
 * The host key types made when ssh_genkeytypes is not set, and those whose public half is derived from a given private
 * one: 25.1's, without the DSA 22.4 (Debian 12's package) still made; cloud-init dropped it in 24.1.
 */
export const GENERATE_KEY_NAMES: readonly string[] = ['rsa', 'ecdsa', 'ed25519'];
const keyFile = (type: string) => `/etc/ssh/ssh_host_${type}_key`;
const UNSUPPORTED = /^(ecdsa-sk|ed25519-sk)_(private|public|certificate)$/;

/**
 * ssh_keys entry name → [file, mode]: the private key 0600, the public key and certificate 0644 (25.1; 22.4 made all
 * three 0600). A DSA entry is skipped as unrecognized, as since 24.1.
 */
function configKeyFile(key: string): [string, number] | undefined {
  const m = /^(rsa|ecdsa|ed25519)_(private|public|certificate)$/.exec(key);
  if (!m) return undefined;
  const base = keyFile(m[1] as string);
  return m[2] === 'private' ? [base, 0o600] : [m[2] === 'public' ? `${base}.pub` : `${base}-cert.pub`, 0o644];
}

async function deleteHostKeys(ctx: ModuleContext): Promise<void> {
  let names: string[] = [];
  try {
    names = await ctx.platform.listDir('/etc/ssh');
  } catch {
    return; // no /etc/ssh to list: no host keys to delete
  }
  for (const n of names) {
    if (!/^ssh_host_.*key.*$/.test(n)) continue;
    try {
      await ctx.platform.remove(`/etc/ssh/${n}`);
    } catch (err) {
      ctx.log.warn(`Failed deleting key file /etc/ssh/${n}: ${describeError(err)}`);
    }
  }
}

/**
 * ssh_keys as handle reads it: each entry's name and key text (its str()), in order; NOT_A_MAPPING for any other
 * value, which the module fails on once the image's keys are deleted (where upstream's `.items()` fails).
 */
type GivenKeys = ReadonlyMap<string, string> | typeof NOT_A_MAPPING;
const NOT_A_MAPPING = 'not a mapping';

/** ssh_keys (GivenKeys); null, as an absent key, is none: the keys are then generated. */
function readGivenKeys(value: unknown): GivenKeys | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isMapping(value)) return NOT_A_MAPPING;
  return new Map(Object.entries(value).map(([key, text]) => [key, String(text)]));
}

/** ssh_genkeytypes as get_cfg_option_list reads it, each type its str(); null, as an absent key, the defaults. */
function readKeyTypes(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  return (readConfigValue('list', value) as unknown[]).map(String);
}

async function writeGivenKeys(ctx: ModuleContext, given: ReadonlyMap<string, string>): Promise<void> {
  for (const [key, text] of given) {
    const target = configKeyFile(key);
    if (!target) {
      ctx.log.warn(`Skipping ${UNSUPPORTED.test(key) ? 'unsupported' : 'unrecognized'} ssh_keys entry: "${key}"`);
      continue;
    }
    await ctx.platform.writeFile(target[0], text, { mode: target[1] });
    if (key.includes('_certificate')) await updateSshdConfig(ctx.platform, { HostCertificate: target[0] });
  }
  for (const type of GENERATE_KEY_NAMES) {
    if (given.has(`${type}_public`) || !given.has(`${type}_private`)) continue;
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

/**
 * Keys started ahead of the ssh module's turn (by prepare), per platform, i.e. per process run. OpenSSL cannot
 * be stopped once it runs: a key that turns out not to be needed is forgotten and finishes unused.
 */
const started = new WeakMap<Platform, Map<HostKeyType, Promise<OpenSshKey>>>();

/** The key types to make: ssh_genkeytypes as read, else 25.1's GENERATE_KEY_NAMES. */
function keyTypes(genkeytypes: readonly string[] | undefined): readonly string[] {
  return genkeytypes ?? GENERATE_KEY_NAMES;
}

/** The host key of TYPE for this run: the one already under way, else a new one. Each is used once. */
function hostKey(platform: Platform, type: HostKeyType): Promise<OpenSshKey> {
  let keys = started.get(platform);
  if (!keys) started.set(platform, (keys = new Map()));
  let key = keys.get(type);
  if (!key) {
    key = generateHostKey(type);
    // A key made ahead and then not needed (its file kept, say) must not surface as an unhandled rejection.
    key.catch(() => undefined);
    keys.set(type, key);
  }
  return key;
}

function forgetKey(platform: Platform, type: HostKeyType): void {
  started.get(platform)?.delete(type);
}

/** ssh-keygen's default comment: the user it runs as (from the target's passwd) and the host name. */
function keygenComment(platform: Platform): string {
  let user = 'root';
  try {
    user = platform.runningUser();
  } catch {
    /* the uid has no passwd entry: ssh-keygen would fail outright; root is what cloud-init runs as */
  }
  return `${user}@${platform.uname().nodename}`;
}

async function writeHostKey(
  ctx: ModuleContext,
  type: HostKeyType,
  file: string,
  group: number | undefined,
  quiet: boolean,
): Promise<void> {
  const key = await hostKey(ctx.platform, type);
  // Used once: a later run in the same process (cloud-init single, say) must make a fresh key.
  forgetKey(ctx.platform, type);
  const comment = keygenComment(ctx.platform);
  const owner = group === undefined ? undefined : 'root:ssh_keys';
  // The same permissions sshd-keygen gives on systems with an ssh_keys group (RHEL family).
  await ctx.platform.writeFile(file, privateKeyFile(key, comment), {
    mode: group === undefined ? 0o600 : 0o640,
    ...(owner ? { owner } : {}),
  });
  await ctx.platform.writeFile(`${file}.pub`, publicKeyLine(key, comment), { mode: 0o644 });
  if (!quiet) {
    const art = randomart(sha256Digest(key.publicBlob), `${key.displayName} ${key.bits}`);
    await ctx.output(keygenReport(type, file, sha256Fingerprint(key.publicBlob), comment, art));
  }
}

/** Starts ssh-keygen on FILE; its outcome is reported in the module's order by reportSshKeygen. */
function startSshKeygen(ctx: ModuleContext, type: string, file: string): Promise<RunResult> {
  const run = ctx.platform.run(['ssh-keygen', '-t', type, '-N', '', '-f', file], {
    env: { LANG: 'C' },
    allowFailure: true,
  });
  // A program that cannot start fails while earlier keys are awaited: reported in its turn, not as unhandled.
  run.catch(() => undefined);
  return run;
}

async function reportSshKeygen(
  ctx: ModuleContext,
  type: string,
  file: string,
  run: Promise<RunResult>,
  group: number | undefined,
  quiet: boolean,
): Promise<void> {
  const r = await run;
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
 * Host keys per ssh_genkeytypes. RSA, ECDSA and Ed25519 are made by OpenSSL in-process, all at once on the
 * thread pool (RSA's prime search is most of a first boot's key time); other types (DSA among them, which
 * newer OpenSSH no longer knows) go to ssh-keygen, as cloud-init sends every type. Files already present are
 * kept, as cloud-init keeps them.
 */
async function generateKeys(ctx: ModuleContext, types: readonly string[], quiet: boolean): Promise<void> {
  const group = await sshKeysGid(ctx);
  const missing: string[] = [];
  // A type listed twice is made once, as cloud-init's exists check before each ssh-keygen does.
  for (const type of new Set(types)) if (!(await ctx.platform.exists(keyFile(type)))) missing.push(type);
  if (missing.length > 0) await ctx.platform.mkdir('/etc/ssh');
  // Every key starts at once: OpenSSL's on the thread pool, ssh-keygen's as programs that run meanwhile (each
  // writes its own files); outcomes are then reported one by one in the config's order, as cloud-init makes them.
  const keygenRuns = new Map<string, Promise<RunResult>>();
  for (const type of missing) {
    if (isHostKeyType(type)) void hostKey(ctx.platform, type);
    else keygenRuns.set(type, startSshKeygen(ctx, type, keyFile(type)));
  }
  for (const type of missing) {
    const file = keyFile(type);
    try {
      const run = keygenRuns.get(type);
      if (isHostKeyType(type)) await writeHostKey(ctx, type, file, group, quiet);
      else if (run) await reportSshKeygen(ctx, type, file, run, group, quiet);
    } catch (err) {
      const why = describeError(err);
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
async function applyCredentials(
  ctx: ModuleContext,
  keys: string[],
  user: string | undefined,
  disableRoot: boolean,
  disableRootOpts: string,
): Promise<void> {
  const unique = [...new Set(keys)];
  if (user) await setupUserKeys(ctx.platform, user, unique);
  const prefix = disableRoot
    ? disableRootOpts.replace(/\$USER/g, user ?? 'NONE').replace(/\$DISABLE_USER/g, 'root')
    : '';
  await setupUserKeys(ctx.platform, 'root', unique, prefix);
}

/**
 * ssh_publish_hostkeys as handle reads it: of a mapping enabled (get_cfg_option_bool) and blacklist
 * (get_cfg_option_list, each type its str()); anything else is as if absent.
 */
function readPublishHostkeys(value: unknown): unknown {
  if (!isMapping(value)) return undefined;
  return readConfigValue({ enabled: 'bool', blacklist: readKeyTypes }, value);
}

/**
 * ssh_authorized_keys as the module reads it: a string is one key, each listed key its str(); null or [] is none;
 * anything else is the schema's to judge (the credentials then fail with a warning, as upstream's extend fails).
 */
function readAuthorizedKeys(value: unknown): unknown {
  if (value === null || (Array.isArray(value) && value.length === 0)) return undefined;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.map(String) : value;
}

/** What both halves of the module (host keys, credentials) are: one module to the runner. */
const SSH_MODULE: Pick<Module, 'name' | 'stage' | 'frequency' | 'distros' | 'activateBy'> = {
  name: 'ssh',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
};

/**
 * handle up to the credentials: the image's host keys deleted, the given ones written or new ones made, and
 * published to the datasource.
 */
const sshHostKeys = configModule({
  ...SSH_MODULE,
  // `cfg.get("ssh_deletekeys", True)`'s truth, get_cfg_option_bool(ssh_quiet_keygen). ssh_keys and ssh_genkeytypes
  // by the module's own parsers: 25.1's module writes the ssh_keys entries it knows and warns about the others, and
  // runs ssh-keygen for every type listed (dsa too; none for an empty list), which its schema rejects.
  configKeys: {
    ssh_deletekeys: 'truthy',
    ssh_keys: new OwnParser(readGivenKeys),
    ssh_genkeytypes: new OwnParser(readKeyTypes),
    ssh_quiet_keygen: 'bool',
    ssh_publish_hostkeys: readPublishHostkeys,
  },
  async run(ctx, cfg): Promise<void> {
    if (cfg.ssh_deletekeys ?? true) await deleteHostKeys(ctx);
    const given = cfg.ssh_keys;
    if (given === NOT_A_MAPPING)
      throw new ModuleError('ssh', `'ssh_keys' must be a mapping of <type>_private/_public/_certificate to key text`);
    if (given !== undefined) await writeGivenKeys(ctx, given);
    else await generateKeys(ctx, keyTypes(cfg.ssh_genkeytypes), cfg.ssh_quiet_keygen ?? false);
    // ssh_publish_hostkeys (default on, nothing blacklisted): the datasource's publish_host_keys, a no-op but for GCE.
    const publish = cfg.ssh_publish_hostkeys;
    if (ctx.publishHostKeys && (publish?.enabled ?? true)) {
      try {
        await ctx.publishHostKeys(await publicHostKeys(ctx.platform, publish?.blacklist ?? HOST_KEY_PUBLISH_BLACKLIST));
      } catch (err) {
        ctx.recoverable('WARNING', `Publishing host keys failed! ${describeError(err)}`);
      }
    }
  },
});

/**
 * handle's credentials: the keys for the default user and root. Run inside upstream's try: what fails here, its
 * config not as the schema says included, is a warning.
 */
const sshCredentials = readingUsers(
  configModule({
    ...SSH_MODULE,
    // get_cfg_option_bool(disable_root), get_cfg_option_str(disable_root_opts),
    // get_cfg_option_bool(allow_public_ssh_keys); the default user as normalize_users_groups finds it.
    configKeys: {
      disable_root: 'bool',
      disable_root_opts: 'str',
      allow_public_ssh_keys: 'bool',
      ssh_authorized_keys: readAuthorizedKeys,
      ...usersReaders({}),
    },
    async run(ctx, cfg): Promise<void> {
      const { defaultUser } = normalizeUsersGroups('ssh', cfg, ctx.log);
      const allowPublic = cfg.allow_public_ssh_keys ?? true;
      const keys = allowPublic ? [...(ctx.instance?.publicKeys ?? [])] : [];
      if (!allowPublic)
        ctx.log.debug('Skipping import of publish SSH keys per config setting: allow_public_ssh_keys=False');
      keys.push(...(cfg.ssh_authorized_keys ?? []));
      await applyCredentials(
        ctx,
        keys,
        defaultUser,
        cfg.disable_root ?? true,
        cfg.disable_root_opts ?? DISABLE_USER_OPTS,
      );
    },
  }),
);

export const ssh: Module = {
  ...sshHostKeys,
  configKeys: [...(sshHostKeys.configKeys ?? []), ...(sshCredentials.configKeys ?? [])],
  /**
   * Starts the host keys as the stage begins (under --all-stages already in init-local, see run-modules and
   * stage-runner), so that OpenSSL's work overlaps what runs before ssh; keys this config does not want are forgotten.
   */
  prepare(ctx, cfg): void {
    const given = readGivenKeys(cfg.ssh_keys) !== undefined;
    const wanted = given ? [] : keyTypes(readKeyTypes(cfg.ssh_genkeytypes)).filter(isHostKeyType);
    for (const type of [...(started.get(ctx.platform)?.keys() ?? [])])
      if (!wanted.includes(type)) forgetKey(ctx.platform, type);
    const deleting = !Object.hasOwn(cfg, 'ssh_deletekeys') || pyTruthy(cfg.ssh_deletekeys);
    for (const type of wanted) {
      // Without ssh_deletekeys an existing key is kept; the check is cheap next to the generation it may spare.
      if (deleting) void hostKey(ctx.platform, type);
      else
        void ctx.platform.exists(keyFile(type)).then(
          (present) => (present ? forgetKey(ctx.platform, type) : void hostKey(ctx.platform, type)),
          () => undefined,
        );
    }
  },
  /** Keys prepared and not used are forgotten, so that a later run in this process makes fresh ones. */
  release(platform: Platform): void {
    started.delete(platform);
  },
  async run(ctx, cfg): Promise<void> {
    await sshHostKeys.run(ctx, cfg);
    try {
      await sshCredentials.run(ctx, cfg);
    } catch (err) {
      // cloud-init logs this at WARNING and goes on; a warning is a recoverable error.
      ctx.recoverable('WARNING', `Applying SSH credentials failed! ${describeError(err)}`);
    }
  },
};
