// cc_byobu: turns byobu's launch-at-login on or off for the default user and/or system-wide (byobu_by_default).
import { CommandError } from '../util/command-error';
import type { Module } from './module';
import { configModule } from './support/config-module';
import { OwnParser } from './support/config-readers';
import { configuredUsers } from './support/configured-users';
import { pyStr } from '../util/python-str';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';
import { foldUsersConfig, usersReaders } from './support/users-readers';

const VALID_VALUES = ['enable-user', 'enable-system', 'enable', 'disable-user', 'disable-system', 'disable'];

/**
 * The `/bin/sh -c` script cloud-init runs for VALUE (already normalised: 'user' → 'enable-user'), or
 * undefined when there is nothing to do. The script counts failures in X and exits with the count, so a failed
 * user step does not stop the system step.
 */
export function byobuScript(
  value: string,
  defaultUser: string | undefined,
  warn: (m: string) => void,
): string | undefined {
  let modUser = value.endsWith('-user');
  let modSys = value.endsWith('-system');
  let launcher: string;
  let selection: string;
  if (value.startsWith('enable')) {
    launcher = 'install';
    selection = 'byobu byobu/launch-by-default boolean true';
    // Enabling for a user also needs the system-wide debconf setting, as cloud-init does.
    modSys = true;
  } else {
    if (value === 'disable') {
      modUser = true;
      modSys = true;
    }
    launcher = 'uninstall';
    selection = 'byobu byobu/launch-by-default boolean false';
  }
  let body = '';
  if (modUser) {
    if (!defaultUser) warn(`No default byobu user provided, can not launch ${launcher} for the default user`);
    else body += ` sudo -Hu "${defaultUser}" byobu-launcher-${launcher} || X=$(($X+1)); `;
  }
  if (modSys)
    body += `echo "${selection}" | debconf-set-selections && dpkg-reconfigure byobu --frontend=noninteractive || X=$(($X+1)); `;
  return body ? `X=0; ${body} exit $X` : undefined;
}

/**
 * byobu_by_default as handle reads it: get_cfg_option_str's str() of it ('' when absent, 'None' for null). 25.1's
 * module takes any value its schema's enum rejects (null among them): it installs byobu, warns "Unknown value", goes
 * on.
 */
function byobuValue(raw: unknown): string {
  return raw === undefined ? '' : pyStr(raw);
}

/** The value handle acts on: 'user' and 'system' are 'enable-user' and 'enable-system'. */
function normalisedValue(value: string): string {
  return value === 'user' || value === 'system' ? `enable-${value}` : value;
}

/** Whether handle reads the default user for VALUE (read by byobuValue): only when it changes the user's launcher. */
function readsUsers(value: string): boolean {
  const v = normalisedValue(value);
  return v !== '' && (v.endsWith('-user') || v === 'disable');
}

const USERS_READERS = usersReaders({});

const typedByobu = configModule({
  name: 'byobu',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['ubuntu', 'debian'],
  activateBy: [],
  configKeys: {
    // 25.1's module acts on a value its schema's enum rejects (installs byobu, warns and goes on).
    byobu_by_default: new OwnParser((raw) => byobuValue(raw) || undefined),
    ...USERS_READERS,
  },
  async run(ctx, cfg): Promise<void> {
    if (cfg.byobu_by_default === undefined) {
      ctx.log.debug("Skipping module named byobu, no 'byobu' values found");
      return;
    }
    // 25.1 installs byobu first where it is missing (22.4 went straight to debconf and dpkg-reconfigure).
    if (!(await whichInTarget(ctx.platform, 'byobu'))) await installPackages(ctx, 'byobu', ['byobu']);
    const value = normalisedValue(cfg.byobu_by_default);
    if (!VALID_VALUES.includes(value)) ctx.log.warn(`Unknown value ${value} for byobu_by_default`);
    const defaultUser = readsUsers(value)
      ? configuredUsers('byobu', cfg, ctx.log).find((u) => u.isDefault)?.name
      : undefined;
    const script = byobuScript(value, defaultUser, (m) => ctx.log.warn(m));
    if (script === undefined) return;
    ctx.log.debug(`Setting byobu to ${value}`);
    const argv = ['/bin/sh', '-c', script];
    const r = await ctx.platform.run(argv, { allowFailure: true });
    // capture=False in cloud-init: the output goes to the console (cloud-init-output.log), not into the error.
    if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0)
      throw new CommandError(`command '${argv.join(' ')}' exited with code ${r.code}`, { argv, code: r.code });
  },
});

/**
 * byobu, given the users keys only when it reads them (readsUsers), then read across keys (users-readers), so that a
 * users key the module never reads cannot fail it.
 */
export const byobuModule: Module = {
  ...typedByobu,
  run: (ctx, cfg) => {
    const { users, user, groups, system_info, ...rest } = cfg;
    const reads = readsUsers(byobuValue(cfg.byobu_by_default));
    return typedByobu.run(ctx, reads ? foldUsersConfig(cfg, (m) => ctx.log.warn(m)) : rest);
  },
};
