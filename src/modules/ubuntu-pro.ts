// cc_ubuntu_pro (formerly ubuntu_advantage): installs the pro client, sets its proxy config, then auto-attaches or
// attaches with the token and enables services, as newest upstream.
import { configModule, type ReadSlice } from './support/config-module';
import { OwnParser } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';
import { ModuleError, type Module, type ModuleContext } from './module';
import { UBUNTU_PRO_PROXY_KEYS } from '../config/schema/cloud-config-system';

const MODULE = 'ubuntu_pro';
/** The names cloud-init still reads, with a warning, in place of `ubuntu_pro`. */
export const DEPRECATED_PRO_KEYS = ['ubuntu-advantage', 'ubuntu_advantage'] as const;
const REDACTED = 'REDACTED';
/** The `config` keys whose values upstream checks are http(s) URLs (the schema's proxy keys). */
const KNOWN_PRO_CONFIG_PROPS: readonly string[] = UBUNTU_PRO_PROXY_KEYS;

function pyType(v: unknown): string {
  if (Array.isArray(v)) return 'list';
  if (v === null) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return 'dict';
}

/** Fails the module after logging MESSAGE as an error, as upstream's LOG.error + RuntimeError. */
function fail(ctx: ModuleContext, message: string): never {
  ctx.log.error(message);
  throw new ModuleError(MODULE, message);
}

/** Python's re.escape for a value with white space (upstream escapes such values before `pro config set`). */
function reEscape(s: string): string {
  return s.replace(/[^A-Za-z0-9_]/g, (c) => `\\${c}`);
}

/** A pro key's value, or its `config`, that is not a mapping: its Python type's name, for handle's error. */
interface NotADict {
  readonly notADict: string;
}

/** One `config` setting, as set_pro_config takes it (in key order). */
interface ProConfigSetting {
  readonly key: string;
  /** What `pro config set` is given (the value's str()), or null: `pro config unset`. */
  readonly value: string | null;
  /** One of the proxy keys upstream checks; any other is only warned about as unknown, and still set. */
  readonly known: boolean;
  /** A known key's value neither null nor an http(s) URL: upstream's complaint, which never names the value. */
  readonly problem?: string;
}

/** `enable` as configure_pro reads it: the services (each its str()), and its warning for a value not a list. */
interface ServicesToEnable {
  readonly services: readonly string[];
  readonly warning?: string;
}

/** The pro section (ubuntu_pro, or a deprecated name in its place) as handle and its helpers read it. */
interface ProSettings {
  /** `commands`: the form before `token`, which handle refuses. */
  readonly hasCommands: boolean;
  /** No key but `features` (or none): nothing to attach with when auto-attach does not apply. */
  readonly onlyFeatures: boolean;
  /** `config`'s settings, or a `config` not a mapping (handle's error once the client is installed). */
  readonly config?: { readonly settings: readonly ProConfigSetting[] } | NotADict;
  /** handle's error for a `features` not a mapping or a disable_auto_attach not a boolean (after `pro config`). */
  readonly featuresProblem?: string;
  /** features.disable_auto_attach: the pro client is not asked whether to auto-attach. */
  readonly disableAutoAttach: boolean;
  /** The --data of full_auto_attach: enable and enable_beta as given. */
  readonly autoAttachData: string;
  /** enable or enable_beta given: on an attached instance, the warning that they are ignored. */
  readonly servicesGiven: boolean;
  /** A truthy token's text, which `pro attach` needs on a non-Pro instance. */
  readonly token?: string;
  readonly enable: ServicesToEnable;
  /** A truthy enable_beta's services, which the token attach leaves out (said in a debug line). */
  readonly ignoredBeta?: string;
}

/** A pro key as handle reads it: null (nothing to do), a mapping's settings, or not a mapping. */
type ProSection = ProSettings | NotADict | null;

/** A known config key's problem: a value not a string, or a URL not http(s). */
function proxyProblem(key: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return `Expected a URL for ua:config:${key}`;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  return scheme === 'http' || scheme === 'https' ? undefined : `Expected URL scheme http/https for ua:config:${key}`;
}

/** `config` as set_pro_config reads it: none when absent or null; each setting in key order. */
function readProConfig(config: unknown): ProSettings['config'] {
  if (config === undefined || config === null) return undefined;
  if (!isRecord(config)) return { notADict: pyType(config) };
  const settings = Object.keys(config)
    .sort()
    .map((key): ProConfigSetting => {
      const given = config[key];
      const value = given === null || given === undefined ? null : String(given);
      const known = KNOWN_PRO_CONFIG_PROPS.includes(key);
      return { key, value, known, problem: known && value !== null ? proxyProblem(key, given) : undefined };
    });
  return { settings };
}

/** validate_schema_features' error for the section's `features`, if any. */
function featuresProblem(section: { readonly features?: unknown }): string | undefined {
  if (!('features' in section)) return undefined;
  const features = section.features;
  if (!isRecord(features)) return `'ubuntu_pro.features' should be a dict, not a ${pyType(features)}`;
  if ('disable_auto_attach' in features && typeof features.disable_auto_attach !== 'boolean')
    return `'ubuntu_pro.features.disable_auto_attach' should be a bool, not a ${pyType(features.disable_auto_attach)}`;
  return undefined;
}

/** The services list configure_pro takes: a list, a string (one service, warned), anything else none (warned). */
function servicesToEnable(enable: unknown): ServicesToEnable {
  if (enable === undefined || enable === null) return { services: [] };
  if (typeof enable === 'string')
    return {
      services: [enable],
      warning: 'ubuntu_pro: enable should be a list, not a string; treating as a single enable',
    };
  if (!Array.isArray(enable))
    return {
      services: [],
      warning: `ubuntu_pro: enable should be a list, not a ${pyType(enable)}; skipping enabling services`,
    };
  return { services: enable.map(String) };
}

/** A pro key's value as handle and its helpers read it; none of its checks fail here, as the key may go unused. */
function readProSection(value: unknown): ProSection {
  if (value === null || value === undefined) return null;
  if (!isRecord(value)) return { notADict: pyType(value) };
  const data: { enable?: unknown; enable_beta?: unknown } = {};
  if (value.enable !== undefined) data.enable = value.enable;
  if (value.enable_beta !== undefined) data.enable_beta = value.enable_beta;
  const beta = value.enable_beta;
  return {
    hasCommands: 'commands' in value,
    onlyFeatures: Object.keys(value).every((k) => k === 'features'),
    config: readProConfig(value.config),
    featuresProblem: featuresProblem(value),
    disableAutoAttach: isRecord(value.features) && Boolean(value.features.disable_auto_attach),
    autoAttachData: JSON.stringify(data),
    servicesGiven: value.enable !== undefined || value.enable_beta !== undefined,
    token: value.token ? String(value.token) : undefined,
    enable: servicesToEnable(value.enable),
    ignoredBeta: beta ? (Array.isArray(beta) ? beta.map(String).join(', ') : String(beta)) : undefined,
  };
}

/** Each pro key, read by readProSection. */
const proSectionReader = new OwnParser(readProSection);
// OwnParser: 25.1 reads `ubuntu-advantage` (no schema key), an enable string, `commands`, a non-bool auto-attach flag.
const PRO_READERS = {
  ubuntu_pro: proSectionReader,
  'ubuntu-advantage': proSectionReader,
  ubuntu_advantage: proSectionReader,
} as const;

/** The pro section, following upstream's precedence and warnings. */
function proSection(ctx: ModuleContext, cfg: ReadSlice<typeof PRO_READERS>): ProSection {
  const deprecated = DEPRECATED_PRO_KEYS.filter((k) => cfg[k] !== undefined);
  let section: ProSection = null;
  if (deprecated.length > 1)
    fail(ctx, `Unable to configure Ubuntu Pro. Multiple deprecated config keys provided: ${deprecated.join(', ')}`);
  const [old] = deprecated;
  if (old !== undefined) {
    ctx.recoverable(
      'WARNING',
      `Deprecated configuration key(s) provided: ${old}. Expected "ubuntu_pro"; will attempt to continue.`,
    );
    section = cfg[old] ?? null;
  }
  if (cfg.ubuntu_pro !== undefined) {
    if (old !== undefined)
      ctx.recoverable('WARNING', `Ignoring deprecated key ${old} and preferring ubuntu_pro config`);
    section = cfg.ubuntu_pro;
  }
  return section;
}

/**
 * `pro config set key=value` / `pro config unset key` for each config key in sorted order; values never reach the log.
 */
async function setProConfig(ctx: ModuleContext, config: ProSettings['config']): Promise<void> {
  if (config === undefined) return;
  if ('notADict' in config)
    throw new ModuleError(
      MODULE,
      `ubuntu_pro: config should be a dict, not a ${config.notADict}; skipping enabling config parameters`,
    );
  const errors: string[] = [];
  for (const { key, known, problem } of config.settings) {
    if (!known) ctx.recoverable('WARNING', `Not validating unknown ubuntu_pro.config.${key} property`);
    else if (problem !== undefined) errors.push(problem);
  }
  if (errors.length) throw new ModuleError(MODULE, `Invalid ubuntu_pro configuration:\n${errors.join('\n')}`);
  const failed: string[] = [];
  for (const { key, value } of config.settings) {
    let argv: string[];
    const secrets: string[] = [];
    if (value === null) {
      ctx.log.debug(`Disabling Pro config for ${key}`);
      argv = ['pro', 'config', 'unset', key];
    } else {
      ctx.log.debug(`Enabling Pro config ${key}=${REDACTED}`);
      argv = ['pro', 'config', 'set', /\s/.test(value) ? `${key}=${reEscape(value)}` : `${key}=${value}`];
      secrets.push(value, reEscape(value));
    }
    const r = await ctx.platform.run(argv, { allowFailure: true, secrets });
    if (r.code !== 0) {
      let err = `Unexpected error while running command.\nCommand: ${argv.slice(0, 3).join(' ')} ...\nExit code: ${r.code}\nStdout: ${r.stdout}\nStderr: ${r.stderr}`;
      for (const s of secrets) err = err.split(s).join(REDACTED);
      ctx.recoverable('WARNING', `Failure enabling/disabling "${key}":\n${err}`);
      failed.push(key);
    }
  }
  if (failed.length)
    throw new ModuleError(
      MODULE,
      `Failure enabling/disabling Ubuntu Pro config(s): ${failed.map((k) => `"${k}"`).join(', ')}`,
    );
}

/** The `pro attach` argv: `--no-auto-enable` when services are named, the token last. */
export function attachArgv(token: string, enable: readonly string[]): string[] {
  return enable.length ? ['pro', 'attach', '--no-auto-enable', token] : ['pro', 'attach', token];
}

/** configure_pro: attach (exit 0 or 2 is success), then `pro enable --assume-yes --format json` and its JSON errors. */
async function configurePro(ctx: ModuleContext, token: string, toEnable: ServicesToEnable): Promise<void> {
  if (toEnable.warning !== undefined) ctx.recoverable('WARNING', toEnable.warning);
  const enable = toEnable.services;
  const argv = attachArgv(token, enable);
  ctx.log.debug(`Attaching to Ubuntu Pro. ${[...argv.slice(0, -1), REDACTED].join(' ')}`);
  const r = await ctx.platform.run(argv, { allowFailure: true, secrets: [token] });
  if (r.code !== 0 && r.code !== 2) {
    const er =
      `Unexpected error while running command.\nCommand: ${[...argv.slice(0, -1), REDACTED].join(' ')}\nExit code: ${r.code}\nStdout: ${r.stdout}\nStderr: ${r.stderr}`
        .split(token)
        .join(REDACTED);
    fail(ctx, `Failure attaching Ubuntu Pro:\n${er}`);
  }
  if (!enable.length) return;
  const cmd = ['pro', 'enable', '--assume-yes', '--format', 'json', ...enable];
  const e = await ctx.platform.run(cmd, { allowFailure: true });
  if (e.code !== 0 && e.code !== 1)
    throw new ModuleError(MODULE, `Error while enabling service(s): ${enable.join(', ')}`);
  let resp: unknown;
  try {
    resp = JSON.parse(e.stdout);
  } catch {
    throw new ModuleError(MODULE, `Pro response was not json: ${e.stdout}`);
  }
  const errs = isRecord(resp) && Array.isArray(resp.errors) ? resp.errors.filter(isRecord) : [];
  const failures = errs.filter((err) => {
    if (err.message_code !== 'service-already-enabled') return true;
    ctx.log.debug(`Service \`${String(err.service)}\` already enabled.`);
    return false;
  });
  if (!failures.length) return;
  const services: string[] = [];
  for (const err of failures) {
    if (err.service !== undefined && err.service !== null) {
      services.push(String(err.service));
      ctx.log.error(`Failure enabling \`${String(err.service)}\`: ${String(err.message)}`);
    } else {
      ctx.log.error(`Failure of type \`${String(err.type)}\`: ${String(err.message)}`);
    }
  }
  throw new ModuleError(MODULE, `Failure enabling Ubuntu Pro service(s): ${services.join(', ')}`);
}

/** A pro API call's error: its title and code. */
interface ProApiError {
  readonly title: string;
  readonly code: unknown;
}

/** A pro API call's answer: a success's data attributes, or its first error. */
type ProApiAnswer = { readonly attributes: unknown } | { readonly error: ProApiError };

/**
 * One call of the pro client's JSON API (`pro api <endpoint>`, DATA its --data), which upstream reaches through the
 * uaclient Python module: its answer, or an error with the reason when the client gave none.
 */
async function proApi(ctx: ModuleContext, endpoint: string, data?: string): Promise<ProApiAnswer> {
  const argv = ['pro', 'api', endpoint, ...(data !== undefined ? ['--data', data] : [])];
  const r = await ctx.platform.run(argv, { allowFailure: true });
  let parsed: unknown;
  try {
    parsed = JSON.parse(r.stdout);
  } catch {
    // Not JSON: the answer is the error below.
  }
  if (!isRecord(parsed)) {
    const title = (r.stderr || r.stdout).trim() || `'${argv.join(' ')}' exited with code ${r.code}`;
    return { error: { title, code: 'no-json' } };
  }
  if (parsed.result === 'success') return { attributes: isRecord(parsed.data) ? parsed.data.attributes : undefined };
  const first = Array.isArray(parsed.errors) ? parsed.errors.find(isRecord) : undefined;
  return {
    error: first ? { title: String(first.title), code: first.code } : { title: 'unknown error', code: 'unknown' },
  };
}

/**
 * _should_auto_attach: never with features.disable_auto_attach; else what the pro client says (false when it cannot
 * say).
 */
async function shouldAutoAttach(ctx: ModuleContext, section: ProSettings): Promise<boolean> {
  if (section.disableAutoAttach) return false;
  const answer = await proApi(ctx, 'u.pro.attach.auto.should_auto_attach.v1');
  if ('error' in answer) {
    ctx.log.debug(`Error during \`should_auto_attach\`: ${answer.error.title}`);
    ctx.recoverable('WARNING', 'Unable to determine if this is an Ubuntu Pro instance. Fallback to normal Pro attach.');
    return false;
  }
  return isRecord(answer.attributes) && answer.attributes.should_auto_attach === true;
}

async function autoAttach(ctx: ModuleContext, section: ProSettings): Promise<void> {
  const answer = await proApi(ctx, 'u.pro.attach.auto.full_auto_attach.v1', section.autoAttachData);
  if (!('error' in answer)) return;
  if (answer.error.code === 'already-attached') {
    if (section.servicesGiven) {
      ctx.recoverable(
        'WARNING',
        'The instance is already attached to Pro. Leaving enabled services untouched. Ignoring config directives ubuntu_pro: enable and enable_beta',
      );
    }
    return;
  }
  fail(ctx, `Error during \`full_auto_attach\`: ${answer.error.title}`);
}

export const ubuntuProModule: Module = configModule({
  name: 'ubuntu_pro',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['ubuntu'],
  activateBy: ['ubuntu_pro', ...DEPRECATED_PRO_KEYS],
  configKeys: PRO_READERS,
  async run(ctx, cfg): Promise<void> {
    const section = proSection(ctx, cfg);
    if (section === null) {
      ctx.log.debug(`Skipping module named ${MODULE}, no 'ubuntu_pro' configuration found`);
      return;
    }
    if ('notADict' in section) fail(ctx, `'ubuntu_pro' should be a dict, not a ${section.notADict}`);
    if (section.hasCommands)
      fail(ctx, 'Deprecated configuration "ubuntu-advantage: commands" provided. Expected "token"');
    if (!(await whichInTarget(ctx.platform, 'pro'))) await installPackages(ctx, MODULE, ['ubuntu-advantage-tools']);
    await setProConfig(ctx, section.config);
    if (section.featuresProblem !== undefined) fail(ctx, section.featuresProblem);
    ctx.log.debug('To discover more log info, please check /var/log/ubuntu-advantage.log');
    if (await shouldAutoAttach(ctx, section)) {
      await autoAttach(ctx, section);
      return;
    }
    if (section.onlyFeatures) return;
    if (section.token === undefined) fail(ctx, '`ubuntu_pro.token` required in non-Pro Ubuntu instances.');
    if (section.ignoredBeta !== undefined)
      ctx.log.debug(`Ignoring \`ubuntu_pro.enable_beta\` services in Pro attach: ${section.ignoredBeta}`);
    await configurePro(ctx, section.token, section.enable);
  },
});
