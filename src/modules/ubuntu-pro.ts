// cc_ubuntu_pro (formerly ubuntu_advantage): installs the pro client, sets its proxy config, then auto-attaches or
// attaches with the token and enables services, as newest upstream.
import { isRecord } from './support/config-shapes';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';
import { ModuleError, type CloudConfig, type Module, type ModuleContext } from './module';
import { UBUNTU_PRO_PROXY_KEYS } from '../config/schema/cloud-config-system';

const MODULE = 'ubuntu_pro';
/** The names cloud-init still reads, with a warning, in place of `ubuntu_pro`. */
export const DEPRECATED_PRO_KEYS = ['ubuntu-advantage', 'ubuntu_advantage'];
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

/** The pro section and the key it came from, following upstream's precedence and warnings. */
export function proSection(ctx: ModuleContext, cfg: CloudConfig): unknown {
  const deprecated = DEPRECATED_PRO_KEYS.filter((k) => k in cfg);
  let section: unknown;
  if (deprecated.length > 1)
    fail(ctx, `Unable to configure Ubuntu Pro. Multiple deprecated config keys provided: ${deprecated.join(', ')}`);
  if (deprecated.length === 1) {
    ctx.recoverable(
      'WARNING',
      `Deprecated configuration key(s) provided: ${deprecated[0]}. Expected "ubuntu_pro"; will attempt to continue.`,
    );
    section = cfg[deprecated[0] as string];
  }
  if ('ubuntu_pro' in cfg) {
    if (deprecated.length)
      ctx.recoverable('WARNING', `Ignoring deprecated key ${deprecated[0]} and preferring ubuntu_pro config`);
    section = cfg.ubuntu_pro;
  }
  return section;
}

/**
 * `pro config set key=value` / `pro config unset key` for each config key in sorted order; values never reach the log.
 */
async function setProConfig(ctx: ModuleContext, config: unknown): Promise<void> {
  if (config === undefined || config === null) return;
  if (!isRecord(config))
    throw new ModuleError(
      MODULE,
      `ubuntu_pro: config should be a dict, not a ${pyType(config)}; skipping enabling config parameters`,
    );
  const keys = Object.keys(config).sort();
  const errors: string[] = [];
  for (const key of keys) {
    const value = config[key];
    if (!KNOWN_PRO_CONFIG_PROPS.includes(key)) {
      ctx.recoverable('WARNING', `Not validating unknown ubuntu_pro.config.${key} property`);
      continue;
    }
    if (value === null || value === undefined) continue;
    // The value itself is never named: a proxy URL may carry credentials.
    const scheme =
      typeof value === 'string' ? /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase() : undefined;
    if (typeof value !== 'string') errors.push(`Expected a URL for ua:config:${key}`);
    else if (scheme !== 'http' && scheme !== 'https')
      errors.push(`Expected URL scheme http/https for ua:config:${key}`);
  }
  if (errors.length) throw new ModuleError(MODULE, `Invalid ubuntu_pro configuration:\n${errors.join('\n')}`);
  const failed: string[] = [];
  for (const key of keys) {
    const value = config[key];
    let argv: string[];
    const secrets: string[] = [];
    if (value === null || value === undefined) {
      ctx.log.debug(`Disabling Pro config for ${key}`);
      argv = ['pro', 'config', 'unset', key];
    } else {
      const text = String(value);
      ctx.log.debug(`Enabling Pro config ${key}=${REDACTED}`);
      argv = ['pro', 'config', 'set', /\s/.test(text) ? `${key}=${reEscape(text)}` : `${key}=${text}`];
      secrets.push(text, reEscape(text));
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

/** The services list upstream accepts: a list, a string (one service, warned), anything else ignored with a warning. */
function enableList(ctx: ModuleContext, enable: unknown): string[] {
  if (enable === undefined || enable === null) return [];
  if (typeof enable === 'string') {
    ctx.recoverable('WARNING', 'ubuntu_pro: enable should be a list, not a string; treating as a single enable');
    return [enable];
  }
  if (!Array.isArray(enable)) {
    ctx.recoverable(
      'WARNING',
      `ubuntu_pro: enable should be a list, not a ${pyType(enable)}; skipping enabling services`,
    );
    return [];
  }
  return enable.map(String);
}

/** The `pro attach` argv: `--no-auto-enable` when services are named, the token last. */
export function attachArgv(token: string, enable: string[]): string[] {
  return enable.length ? ['pro', 'attach', '--no-auto-enable', token] : ['pro', 'attach', token];
}

/** configure_pro: attach (exit 0 or 2 is success), then `pro enable --assume-yes --format json` and its JSON errors. */
async function configurePro(ctx: ModuleContext, token: string, enableValue: unknown): Promise<void> {
  const enable = enableList(ctx, enableValue);
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
  const failures: Array<Record<string, unknown>> = [];
  for (const err of errs) {
    if (err.message_code === 'service-already-enabled') {
      ctx.log.debug(`Service \`${String(err.service)}\` already enabled.`);
      continue;
    }
    failures.push(err);
  }
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

/**
 * One call of the pro client's JSON API (`pro api <endpoint>`), which upstream reaches through the uaclient Python
 * module: the parsed answer, or undefined with the reason when the client gave none.
 */
async function proApi(
  ctx: ModuleContext,
  endpoint: string,
  data?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const argv = ['pro', 'api', endpoint, ...(data ? ['--data', JSON.stringify(data)] : [])];
  const r = await ctx.platform.run(argv, { allowFailure: true });
  try {
    const parsed: unknown = JSON.parse(r.stdout);
    if (isRecord(parsed)) return parsed;
  } catch {
    // fall through: no JSON answer
  }
  return {
    result: 'failure',
    errors: [
      { title: (r.stderr || r.stdout).trim() || `'${argv.join(' ')}' exited with code ${r.code}`, code: 'no-json' },
    ],
  };
}

function apiError(answer: Record<string, unknown>): Record<string, unknown> | undefined {
  if (answer.result === 'success') return undefined;
  const errs = Array.isArray(answer.errors) ? answer.errors.filter(isRecord) : [];
  return errs[0] ?? { title: 'unknown error', code: 'unknown' };
}

/**
 * _should_auto_attach: never with features.disable_auto_attach; else what the pro client says (false when it cannot
 * say).
 */
async function shouldAutoAttach(ctx: ModuleContext, section: Record<string, unknown>): Promise<boolean> {
  const features = isRecord(section.features) ? section.features : {};
  if (features.disable_auto_attach) return false;
  const answer = await proApi(ctx, 'u.pro.attach.auto.should_auto_attach.v1');
  const err = apiError(answer);
  if (err) {
    ctx.log.debug(`Error during \`should_auto_attach\`: ${String(err.title)}`);
    ctx.recoverable('WARNING', 'Unable to determine if this is an Ubuntu Pro instance. Fallback to normal Pro attach.');
    return false;
  }
  const data = isRecord(answer.data) && isRecord(answer.data.attributes) ? answer.data.attributes : {};
  return data.should_auto_attach === true;
}

async function autoAttach(ctx: ModuleContext, section: Record<string, unknown>): Promise<void> {
  const data: Record<string, unknown> = {};
  if (section.enable !== undefined) data.enable = section.enable;
  if (section.enable_beta !== undefined) data.enable_beta = section.enable_beta;
  const answer = await proApi(ctx, 'u.pro.attach.auto.full_auto_attach.v1', data);
  const err = apiError(answer);
  if (!err) return;
  if (err.code === 'already-attached') {
    if (section.enable !== undefined || section.enable_beta !== undefined) {
      ctx.recoverable(
        'WARNING',
        'The instance is already attached to Pro. Leaving enabled services untouched. Ignoring config directives ubuntu_pro: enable and enable_beta',
      );
    }
    return;
  }
  fail(ctx, `Error during \`full_auto_attach\`: ${String(err.title)}`);
}

export const ubuntuProModule: Module = {
  name: 'ubuntu_pro',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['ubuntu'],
  activateBy: ['ubuntu_pro', ...DEPRECATED_PRO_KEYS],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    const section = proSection(ctx, cfg);
    if (section === undefined || section === null) {
      ctx.log.debug(`Skipping module named ${MODULE}, no 'ubuntu_pro' configuration found`);
      return;
    }
    if (!isRecord(section)) fail(ctx, `'ubuntu_pro' should be a dict, not a ${pyType(section)}`);
    if ('commands' in section)
      fail(ctx, 'Deprecated configuration "ubuntu-advantage: commands" provided. Expected "token"');
    if (!(await whichInTarget(ctx.platform, 'pro'))) await installPackages(ctx, MODULE, ['ubuntu-advantage-tools']);
    await setProConfig(ctx, section.config);
    if ('features' in section) {
      const features = section.features;
      if (!isRecord(features)) fail(ctx, `'ubuntu_pro.features' should be a dict, not a ${pyType(features)}`);
      if ('disable_auto_attach' in features && typeof features.disable_auto_attach !== 'boolean') {
        fail(
          ctx,
          `'ubuntu_pro.features.disable_auto_attach' should be a bool, not a ${pyType(features.disable_auto_attach)}`,
        );
      }
    }
    ctx.log.debug('To discover more log info, please check /var/log/ubuntu-advantage.log');
    if (await shouldAutoAttach(ctx, section)) {
      await autoAttach(ctx, section);
      return;
    }
    if (Object.keys(section).every((k) => k === 'features')) return;
    const token = section.token;
    if (!token) fail(ctx, '`ubuntu_pro.token` required in non-Pro Ubuntu instances.');
    if (section.enable_beta) {
      const beta = Array.isArray(section.enable_beta)
        ? section.enable_beta.map(String).join(', ')
        : String(section.enable_beta);
      ctx.log.debug(`Ignoring \`ubuntu_pro.enable_beta\` services in Pro attach: ${beta}`);
    }
    await configurePro(ctx, String(token), section.enable);
  },
};
