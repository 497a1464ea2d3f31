// cc_rh_subscription: registers a RHEL system with subscription-manager (identity check first), then auto-attach or
// service level, pools, repos and the release, as newest upstream (25.1's dashed keys and 25.3's names both read).
import { isRecord } from './support/config-shapes';
import { isFalse, isTrue } from './support/config-values';
import { pyStr } from '../util/python-str';
import { whichInTarget } from './support/distro-facts';
import { configModule } from './support/config-module';
import { OwnParser } from './support/config-readers';
import { ModuleError, type Module, type ModuleContext } from './module';

const MODULE = 'rh_subscription';

/** The keys newest upstream renamed (25.3) from the dashed forms, which it still reads when the new one is absent. */
const RENAMED_KEYS: readonly string[] = [
  'activation_key',
  'auto_attach',
  'service_level',
  'add_pool',
  'enable_repo',
  'disable_repo',
  'rhsm_baseurl',
  'server_hostname',
];

/** A list key given as something else: the module registers, then stops at it with its warning. */
const NOT_A_LIST = 'not a list';

/** A list key's items (each Python's str() of it), or NOT_A_LIST. */
type ListSetting = readonly string[] | typeof NOT_A_LIST;

/** auto_attach as the module acts on it (given, not null). */
interface AutoAttach {
  /** is_true or is_false reads it: anything else is refused before registering. */
  readonly readsAsBoolean: boolean;
  /** Its truthiness: a quoted false word ('no') is true too, and upstream's `elif sm.auto_attach` attaches with it. */
  readonly attach: boolean;
  /** service_level may go with it: truthy and not a false word. */
  readonly withServiceLevel: boolean;
}

/**
 * rh_subscription as the module works with it, each renamed key under its 25.3 name; a value it writes into a
 * subscription-manager argument is Python's str() of it, absent when not given or null.
 */
export interface RhSubscription {
  /** is_configured: a username with a password, or an activation key (each as given, by its truthiness). */
  readonly configured: boolean;
  readonly username?: string;
  readonly password?: string;
  readonly activation_key?: string;
  readonly org?: string;
  readonly rhsm_baseurl?: string;
  readonly server_hostname?: string;
  readonly auto_attach?: AutoAttach;
  readonly service_level?: string;
  readonly add_pool?: ListSetting;
  readonly enable_repo?: ListSetting;
  readonly disable_repo?: ListSetting;
  /** Only a truthy one (`if self.release_version:`). */
  readonly release_version?: string;
}

/** What `subscription-manager register` is given. */
export type RegisterSettings = Pick<
  RhSubscription,
  'username' | 'password' | 'activation_key' | 'org' | 'rhsm_baseurl' | 'server_hostname'
>;

/**
 * rh_subscription read: null is as if absent (not configured), a value not a mapping the module's error; each renamed
 * key read under its dashed name when the new one is absent (the new name wins when both are given); keys it does not
 * know are left out, as newest upstream never reads them.
 */
function readRhSubscription(value: unknown): RhSubscription | undefined {
  if (value === null || value === undefined) return undefined;
  if (!isRecord(value))
    throw new ModuleError(MODULE, `'rh_subscription' must be a mapping, not ${JSON.stringify(value)}`);
  const given = (key: string): unknown =>
    value[key] === undefined && RENAMED_KEYS.includes(key) ? value[key.replace(/_/g, '-')] : value[key];
  const text = (key: string): string | undefined => {
    const v = given(key);
    return v === undefined || v === null ? undefined : pyStr(v);
  };
  const list = (key: string): ListSetting | undefined => {
    const v = given(key);
    if (v === undefined || v === null) return undefined;
    return Array.isArray(v) ? v.map(pyStr) : NOT_A_LIST;
  };
  const autoAttach = given('auto_attach');
  const release = given('release_version');
  return {
    configured: Boolean((given('username') && given('password')) || given('activation_key')),
    username: text('username'),
    password: text('password'),
    activation_key: text('activation_key'),
    org: text('org'),
    rhsm_baseurl: text('rhsm_baseurl'),
    server_hostname: text('server_hostname'),
    auto_attach:
      autoAttach === undefined || autoAttach === null
        ? undefined
        : {
            readsAsBoolean: isTrue(autoAttach) || isFalse(autoAttach),
            attach: Boolean(autoAttach),
            withServiceLevel: Boolean(autoAttach) && !isFalse(pyStr(autoAttach)),
          },
    service_level: text('service_level'),
    add_pool: list('add_pool'),
    enable_repo: list('enable_repo'),
    disable_repo: list('disable_repo'),
    release_version: release ? pyStr(release) : undefined,
  };
}

/** A step that did not complete: cloud-init logs it as a warning and the module still ends without failing. */
class SubscriptionError extends Error {}

/** One subscription-manager run: the result, or a failure with its output (cloud-init's ProcessExecutionError). */
interface SubManResult {
  ok: boolean;
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The argv of `subscription-manager register` for the configured credentials, or undefined when they are incomplete.
 */
export function registerArgv(rh: RegisterSettings): string[] | undefined {
  let argv: string[];
  if (rh.activation_key !== undefined && rh.org !== undefined)
    argv = ['register', `--activationkey=${rh.activation_key}`, `--org=${rh.org}`];
  else if (rh.username !== undefined && rh.password !== undefined)
    argv = ['register', `--username=${rh.username}`, `--password=${rh.password}`];
  else return undefined;
  if (rh.rhsm_baseurl !== undefined) argv.push(`--baseurl=${rh.rhsm_baseurl}`);
  if (rh.server_hostname !== undefined) argv.push(`--serverurl=${rh.server_hostname}`);
  return ['subscription-manager', ...argv];
}

/** _verify_keys (unknown keys are the schema's to report, as upstream): the first problem, or undefined. */
export function verifyKeys(rh: RhSubscription): string | undefined {
  if (rh.auto_attach?.readsAsBoolean === false) return 'The key auto_attach must be a boolean value (True/False)';
  if (rh.service_level !== undefined && !rh.auto_attach?.withServiceLevel) {
    return 'The service_level key must be used in conjunction with the auto_attach key.  Please re-run with auto_attach: True';
  }
  return undefined;
}

class SubscriptionManager {
  constructor(
    private readonly ctx: ModuleContext,
    private readonly rh: RhSubscription,
  ) {}

  /**
   * Runs subscription-manager with ARGS; the password and activation key never reach the log (cloud-init hides the
   * whole command).
   */
  async cli(args: string[]): Promise<SubManResult> {
    const secrets = [this.rh.password, this.rh.activation_key].filter((v): v is string => v !== undefined && v !== '');
    const argv = args[0] === 'subscription-manager' ? args : ['subscription-manager', ...args];
    // A tool that cannot be started: cloud-init's ProcessExecutionError then carries '-' as its output, so no
    // "Registration failed due to" line is logged (that needs an empty stdout).
    if (!(await whichInTarget(this.ctx.platform, 'subscription-manager')))
      return { ok: false, code: 127, stdout: '-', stderr: '-' };
    const r = await this.ctx.platform.run(argv, { allowFailure: true, secrets });
    return { ok: r.code === 0, ...r };
  }

  /** Like cli(), but a failure ends the module (cloud-init lets the ProcessExecutionError escape here). */
  async mustRun(args: string[]): Promise<string> {
    const r = await this.cli(args);
    if (!r.ok)
      throw new ModuleError(
        MODULE,
        `'subscription-manager ${args.join(' ')}' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`,
      );
    return r.stdout;
  }

  warn(message: string): void {
    this.ctx.recoverable('WARNING', message);
  }

  async register(): Promise<boolean> {
    const argv = registerArgv(this.rh);
    if (!argv) {
      this.warn('Unable to register system due to incomplete information.');
      this.warn('Use either activationkey and org *or* userid and password');
      return false;
    }
    const r = await this.cli(argv);
    if (!r.ok) {
      if (r.stdout === '') this.warn(`Registration failed due to: ${r.stderr}`);
      return false;
    }
    const id = r.stdout.split('ID: ')[1];
    if (id === undefined)
      throw new ModuleError(MODULE, `subscription-manager register printed no 'ID: ' line: ${r.stdout.trim()}`);
    this.ctx.log.debug(`Registered successfully with ID ${id.trimEnd()}`);
    return true;
  }

  async setServiceLevel(level: string): Promise<boolean> {
    const r = await this.cli(['attach', '--auto', `--servicelevel=${level}`]);
    if (!r.ok) {
      if (r.stdout.trimEnd() !== '') {
        for (const line of r.stdout.split('\n')) if (line !== '') this.warn(line);
      } else {
        this.warn(`Setting the service level failed with: ${r.stderr.trim()}`);
      }
      return false;
    }
    for (const line of r.stdout.split('\n')) if (line !== '') this.ctx.log.debug(line);
    return true;
  }

  async setAutoAttach(): Promise<boolean> {
    const r = await this.cli(['attach', '--auto']);
    if (!r.ok) {
      this.warn(`auto_attach failed with: exit code ${r.code}: ${r.stderr.trim()}`);
      return false;
    }
    for (const line of r.stdout.split('\n')) if (line !== '') this.ctx.log.debug(line);
    return true;
  }

  async addPools(pools: readonly string[]): Promise<boolean> {
    if (!pools.length) {
      this.ctx.log.debug('No pools to attach');
      return true;
    }
    const available = (await this.mustRun(['list', '--available', '--pool-only'])).trimEnd().split('\n');
    const consumed = (await this.mustRun(['list', '--consumed', '--pool-only'])).trimEnd().split('\n');
    const flags: string[] = [];
    for (const pool of pools) {
      if (!consumed.includes(pool) && available.includes(pool)) flags.push(`--pool=${pool}`);
      else this.warn(`Pool ${pool} is not available`);
    }
    // As cloud-init: with no pool left to attach the step reports failure.
    if (flags.length === 0) return false;
    const r = await this.cli(['attach', ...flags]);
    if (!r.ok) {
      this.warn(
        `Unable to attach pool ${pools[pools.length - 1] ?? ''} due to exit code ${r.code}: ${r.stderr.trim()}`,
      );
      return false;
    }
    this.ctx.log.debug(
      `Attached the following pools to your system: ${flags.map((f) => f.slice('--pool='.length)).join(', ')}`,
    );
    return true;
  }

  async repoIds(flag: '--list-enabled' | '--list-disabled'): Promise<string[]> {
    const out = await this.mustRun(['repos', flag]);
    return out
      .split('\n')
      .filter((l) => l.includes('Repo ID:'))
      .map((l) => (l.split(':')[1] ?? '').trim());
  }

  async updateRepos(): Promise<boolean> {
    const erepos = this.rh.enable_repo ?? [];
    const drepos = this.rh.disable_repo ?? [];
    if (erepos === NOT_A_LIST || drepos === NOT_A_LIST) {
      this.warn('Repo IDs must in the format of a list.');
      return false;
    }
    if (erepos.length === 0 && drepos.length === 0) {
      this.ctx.log.debug('No repo IDs to enable or disable');
      return true;
    }
    const active = await this.repoIds('--list-enabled');
    const inactive = await this.repoIds('--list-disabled');
    const enable: string[] = [];
    const disable: string[] = [];
    for (const id of erepos) {
      if (inactive.includes(id)) enable.push(`--enable=${id}`);
      else if (active.includes(id)) this.ctx.log.debug(`Repo ${id} is already enabled`);
      else this.warn(`Repo ${id} does not appear to exist`);
    }
    for (const id of drepos) {
      if (active.includes(id)) disable.push(`--disable=${id}`);
      else this.ctx.log.debug(`Repo ${id} not disabled because it is not enabled`);
    }
    // cloud-init runs `repos` even when nothing is left to change.
    const r = await this.cli(['repos', ...disable, ...enable]);
    if (!r.ok) {
      this.warn(`Unable to alter repos due to exit code ${r.code}: ${r.stderr.trim()}`);
      return false;
    }
    if (enable.length)
      this.ctx.log.debug(`Enabled the following repos: ${enable.map((f) => f.slice('--enable='.length)).join(', ')}`);
    if (disable.length)
      this.ctx.log.debug(
        `Disabled the following repos: ${disable.map((f) => f.slice('--disable='.length)).join(', ')}`,
      );
    return true;
  }

  async subscribe(): Promise<void> {
    const rh = this.rh;
    const problem = verifyKeys(rh);
    if (problem) throw new SubscriptionError(problem);
    if (!(await this.register())) throw new SubscriptionError('Registration failed or did not run completely');
    const autoAttach = rh.auto_attach?.attach;
    const level = rh.service_level;
    if (autoAttach && level !== undefined) {
      if (!(await this.setServiceLevel(level))) throw new SubscriptionError('Setting of service_level failed');
      this.ctx.log.debug('Completed auto_attach with service level');
    } else if (autoAttach) {
      if (!(await this.setAutoAttach())) throw new SubscriptionError('Setting auto_attach failed');
      this.ctx.log.debug('Completed auto_attach');
    }
    const pools = rh.add_pool;
    if (pools !== undefined) {
      if (pools === NOT_A_LIST) throw new SubscriptionError('Pools must in the format of a list');
      if (!(await this.addPools(pools)))
        throw new SubscriptionError(`Unable to attach pools [${pools.map((p) => `'${p}'`).join(', ')}]`);
    }
    if (!(await this.updateRepos())) throw new SubscriptionError('Unable to add or remove repos');
    if (rh.release_version !== undefined) {
      const args = ['release', `--set=${rh.release_version}`];
      if (!(await this.cli(args)).ok)
        throw new SubscriptionError(`Unable to set release_version using: [${args.map((a) => `'${a}'`).join(', ')}]`);
      // The package manager's cache still describes the old release.
      this.ctx.log.debug('Deleting the package manager cache');
      await this.ctx.platform.remove('/var/cache/dnf', { recursive: true });
      await this.ctx.platform.remove('/var/cache/yum', { recursive: true });
    }
    this.ctx.log.info('rh_subscription plugin completed successfully');
  }
}

export const rhSubscriptionModule: Module = configModule({
  name: 'rh_subscription',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['fedora', 'rhel'],
  activateBy: ['rh_subscription'],
  // OwnParser: 25.1 acts on auto-attach 'yes', numbers str()'d, an add-pool not a list (registers, then stops).
  configKeys: { rh_subscription: new OwnParser(readRhSubscription) },
  async run(ctx, cfg): Promise<void> {
    const rh = cfg.rh_subscription;
    // is_configured: a username with a password, or an activation key.
    if (!rh?.configured) {
      ctx.log.debug(`${MODULE}: module not configured.`);
      return;
    }
    const sm = new SubscriptionManager(ctx, rh);
    // is_registered: `subscription-manager identity` succeeds on a registered system.
    if ((await sm.cli(['identity'])).ok) {
      ctx.log.info('System is already registered');
      return;
    }
    try {
      await sm.subscribe();
    } catch (e) {
      if (!(e instanceof SubscriptionError)) throw e;
      sm.warn(e.message);
      sm.warn('rh_subscription plugin did not complete successfully');
    }
  },
});
