// cc_byobu: turns byobu's launch-at-login on or off for the default user and/or system-wide (byobu_by_default).
import { CommandError } from '../util/command-error';
import type { Module } from './module';
import { configuredUsers } from './support/configured-users';
import { pyStr } from '../util/python-str';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';

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

export const byobuModule: Module = {
  name: 'byobu',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['ubuntu', 'debian'],
  activateBy: [],
  async run(ctx, cfg): Promise<void> {
    const raw = cfg.byobu_by_default;
    // get_cfg_option_str: absent or null is '', anything else its Python str().
    let value = raw === undefined || raw === null ? '' : pyStr(raw);
    if (!value) {
      ctx.log.debug("Skipping module named byobu, no 'byobu' values found");
      return;
    }
    // 25.1 installs byobu first where it is missing (22.4 went straight to debconf and dpkg-reconfigure).
    if (!(await whichInTarget(ctx.platform, 'byobu'))) await installPackages(ctx, 'byobu', ['byobu']);
    if (value === 'user' || value === 'system') value = `enable-${value}`;
    if (!VALID_VALUES.includes(value)) ctx.log.warn(`Unknown value ${value} for byobu_by_default`);
    const needsUser = value.endsWith('-user') || value === 'disable';
    const defaultUser = needsUser ? configuredUsers('byobu', cfg, ctx.log).find((u) => u.isDefault)?.name : undefined;
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
};
