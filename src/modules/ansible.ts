// cc_ansible: installs ansible (distro package or pip, as run_user), then runs ansible-galaxy actions, ansible-pull and
// the controller's clones and playbooks.
import { configModule } from './support/config-module';
import { OwnParser } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';
import { RefusedSetting } from './support/refused-setting';
import { pyStr } from '../util/python-str';
import { pyTruthy } from '../util/python-truthy';
import { ModuleError, type Module, type ModuleContext } from './module';

const MODULE = 'ansible';
/** cloud-init runs pip with its own interpreter (sys.executable), Debian's /usr/bin/python3. */
const PYTHON = '/usr/bin/python3';
/** The variable cloud-init sets from ansible_config (upstream spells it in lower case). */
const CFG_OVERRIDE = 'ansible_config';

/** How one ansible command runs: directly with cloud-init's environment, or through `su - run_user -c`. */
export class AnsibleRunner {
  readonly env: Record<string, string>;
  constructor(
    private readonly ctx: ModuleContext,
    readonly runUser: string | undefined,
  ) {
    // Some ansible modules read HOME, which an early boot may lack.
    this.env = { HOME: process.env.HOME ?? '/root' };
  }

  /** The argv cloud-init runs for COMMAND: distro.do_as joins the words into `su`'s one shell command. */
  argv(command: readonly string[], cwd?: string): string[] {
    if (!this.runUser) return [...command];
    return ['su', '-', this.runUser, '-c', `${cwd ? `cd ${cwd} && ` : ''}env PATH=$PATH ${command.join(' ')}`];
  }

  async run(command: readonly string[], cwd?: string): Promise<string> {
    const argv = this.argv(command, cwd);
    const direct = !this.runUser;
    const r = await this.ctx.platform.run(argv, {
      allowFailure: true,
      ...(direct ? { env: this.env } : {}),
      ...(direct && cwd ? { cwd } : {}),
    });
    if (r.code !== 0) {
      if (r.stdout || r.stderr) await this.ctx.output(r.stdout + r.stderr);
      throw new ModuleError(
        MODULE,
        `'${argv.join(' ')}' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}` : ''}`,
      );
    }
    return r.stdout;
  }
}

/** Options of a command, each key an option (--key-with-dashes=value) and its value as given. */
interface AnsibleOptions {
  readonly [option: string]: unknown;
}

/**
 * ansible.pull as run_ansible_pull reads it: playbook_name (the playbook, last) and any other key an ansible-pull
 * option, whatever its name (25.1's schema names 21).
 */
export interface AnsiblePullSettings extends AnsibleOptions {
  readonly playbook_name: unknown;
}

/** An entry of setup_controller.run_ansible: the playbook, its folder and any other key an option. */
interface AnsiblePlaybookSettings extends AnsibleOptions {
  readonly playbook_dir: unknown;
  readonly playbook_name: unknown;
}

/** An entry of setup_controller.repositories: the git source cloned into path. */
interface AnsibleRepository {
  readonly source: string;
  readonly path: string;
}

/**
 * ansible as 25.1's handle reads it once validate_config passed. An entry it cannot use is refused where handle
 * reaches it, after the ones before it ran; galaxy without actions is warned about there.
 */
export interface AnsibleSettings {
  readonly install_method: 'pip' | 'distro';
  readonly package_name: string;
  /** A run_user given as a non-empty string: pip (install_method pip) and every ansible command run as that user. */
  readonly run_user?: string;
  /** A Python-true ansible_config, its text. */
  readonly ansible_config?: string;
  /** galaxy's actions when galaxy is Python-true, each a command. */
  readonly galaxy?: ReadonlyArray<readonly string[] | RefusedSetting> | RefusedSetting;
  /** A Python-true pull. */
  readonly pull?: AnsiblePullSettings;
  /** A Python-true setup_controller: its clones and playbooks. */
  readonly setup_controller?: {
    readonly repositories: ReadonlyArray<AnsibleRepository | RefusedSetting>;
    readonly run_ansible: ReadonlyArray<AnsiblePlaybookSettings | RefusedSetting>;
  };
}

/** validate_config: the keys cloud-init requires before doing anything. */
export function validateAnsibleConfig(a: { readonly [key: string]: unknown }): void {
  for (const key of ['install_method', 'package_name'])
    if (!a[key]) throw new ModuleError(MODULE, `Missing required key '${key}' from ${JSON.stringify(a)}`);
  if (a.pull) {
    const pull = isRecord(a.pull) ? a.pull : {};
    for (const key of ['url', 'playbook_name'])
      if (!pull[key]) throw new ModuleError(MODULE, `Missing required key 'pull/${key}' from ${JSON.stringify(a)}`);
  }
  if (a.setup_controller) {
    const c = isRecord(a.setup_controller) ? a.setup_controller : {};
    if (
      !(Array.isArray(c.repositories) && c.repositories.length) &&
      !(Array.isArray(c.run_ansible) && c.run_ansible.length)
    ) {
      throw new ModuleError(MODULE, `Missing required key from ${JSON.stringify(a.setup_controller)}`);
    }
  }
  if (a.install_method !== 'pip' && a.install_method !== 'distro')
    throw new ModuleError(MODULE, `Invalid install method ${pyStr(a.install_method)}`);
}

/** filter_args: '_' becomes '-', false values are left out; true gives a bare flag. */
export function flagArgs(options: AnsibleOptions): string[] {
  return Object.entries(options)
    .filter(([, v]) => v !== false)
    .map(([k, v]) => (v === true ? `--${k.replace(/_/g, '-')}` : `--${k.replace(/_/g, '-')}=${pyStr(v)}`));
}

/** The ansible-pull argv cloud-init builds from `pull` (playbook_name last). */
export function pullArgv(pull: AnsiblePullSettings): string[] {
  const { playbook_name: playbook, ...rest } = pull;
  return ['ansible-pull', ...flagArgs(rest), pyStr(playbook)];
}

/** galaxy as ansible_galaxy reads it: its actions, each a command list; none is only warned about. */
function readGalaxy(galaxy: unknown): ReadonlyArray<readonly string[] | RefusedSetting> | RefusedSetting {
  const actions = isRecord(galaxy) && Array.isArray(galaxy.actions) ? galaxy.actions : [];
  if (actions.length === 0) return new RefusedSetting(`Invalid config: ${JSON.stringify(galaxy)}`);
  return actions.map((action: unknown) =>
    Array.isArray(action)
      ? action.map(String)
      : new RefusedSetting(`ansible.galaxy.actions: each action is a command list, not ${JSON.stringify(action)}`),
  );
}

/** A repositories entry as ansible_controller reads it: source and path (each its text), else refused. */
function readRepository(repo: unknown): AnsibleRepository | RefusedSetting {
  const r = isRecord(repo) ? repo : {};
  if (r.source === undefined || r.path === undefined)
    return new RefusedSetting('ansible.setup_controller.repositories: each entry needs source and path');
  return { source: pyStr(r.source), path: pyStr(r.path) };
}

/** A run_ansible entry as ansible_controller reads it: a mapping with playbook_dir and playbook_name, else refused. */
function readPlaybookRun(entry: unknown): AnsiblePlaybookSettings | RefusedSetting {
  if (!isRecord(entry) || entry.playbook_dir === undefined || entry.playbook_name === undefined)
    return new RefusedSetting('ansible.setup_controller.run_ansible: each entry needs playbook_dir and playbook_name');
  return { ...entry, playbook_dir: entry.playbook_dir, playbook_name: entry.playbook_name };
}

/**
 * ansible as 25.1's handle reads it: none or an empty mapping does nothing, anything else but a mapping fails the
 * module, and validate_config's checks fail it before anything runs. Upstream passes every pull key to ansible-pull
 * (and every run_ansible key to ansible-playbook) as an option, whatever its name, and str()s every value.
 */
function readAnsible(value: unknown): AnsibleSettings | undefined {
  const a = value ?? {};
  if (!isRecord(a)) throw new ModuleError(MODULE, `'ansible' must be a mapping, not ${JSON.stringify(a)}`);
  if (Object.keys(a).length === 0) return undefined;
  validateAnsibleConfig(a);
  const controller = isRecord(a.setup_controller) ? a.setup_controller : {};
  const repositories: unknown[] = Array.isArray(controller.repositories) ? controller.repositories : [];
  const runs: unknown[] = Array.isArray(controller.run_ansible) ? controller.run_ansible : [];
  return {
    install_method: a.install_method === 'pip' ? 'pip' : 'distro',
    package_name: pyStr(a.package_name),
    ...(typeof a.run_user === 'string' && a.run_user ? { run_user: a.run_user } : {}),
    ...(pyTruthy(a.ansible_config) ? { ansible_config: pyStr(a.ansible_config) } : {}),
    ...(pyTruthy(a.galaxy) ? { galaxy: readGalaxy(a.galaxy) } : {}),
    ...(pyTruthy(a.pull) && isRecord(a.pull) ? { pull: { ...a.pull, playbook_name: a.pull.playbook_name } } : {}),
    ...(pyTruthy(a.setup_controller)
      ? { setup_controller: { repositories: repositories.map(readRepository), run_ansible: runs.map(readPlaybookRun) } }
      : {}),
  };
}

function versionOf(text: string): number[] | undefined {
  const m = /([\d.]+)/.exec(text.split('\n')[0] ?? '');
  return m ? (m[1] as string).split('.').filter(Boolean).map(Number) : undefined;
}

function below(v: number[], ref: number[]): boolean {
  for (let i = 0; i < ref.length; i++) {
    const a = v[i] ?? 0;
    if (a !== ref[i]) return a < (ref[i] as number);
  }
  return false;
}

async function installWithPip(ctx: ModuleContext, runner: AnsibleRunner, pkg: string): Promise<void> {
  if ((await runner.run([PYTHON, '-m', 'pip', 'list'])).includes('ansible')) return;
  const hasPip = (await ctx.platform.run([PYTHON, '-c', 'import pip'], { allowFailure: true })).code === 0;
  if (!hasPip) await installPackages(ctx, MODULE, [ctx.distro.family === 'alpine' ? 'py3-pip' : 'python3-pip']);
  const words = (await runner.run([PYTHON, '-m', 'pip', '--version'])).split(/\s+/).filter(Boolean);
  if (words.length < 2) ctx.recoverable('WARNING', `Error parsing pip version string: ${words.join(' ')}`);
  const cmd = [PYTHON, '-m', 'pip', 'install'];
  // pip 23.0.1 refuses a distro-managed Python without this flag.
  if (!below(versionOf(words[1] ?? '') ?? [0], [23, 0, 1])) cmd.push('--break-system-packages');
  if (runner.runUser) cmd.push('--user');
  await runner.run([...cmd, '--upgrade', 'pip']);
  await runner.run([...cmd, pkg]);
}

export const ansibleModule: Module = configModule({
  name: 'ansible',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['ansible'],
  // 25.1's module passes pull keys its schema rejects (any name) to ansible-pull and str()s values of other types
  // (a numeric pull timeout).
  configKeys: { ansible: new OwnParser(readAnsible) },
  async run(ctx, cfg): Promise<void> {
    const a = cfg.ansible;
    if (a === undefined) return;
    const pkg = a.package_name;
    let runner: AnsibleRunner;
    if (a.install_method === 'pip') {
      runner = new AnsibleRunner(ctx, a.run_user);
      // As cloud-init: the user's site folder joins PATH (its quoted -c argument makes python print nothing, so this is
      // '/bin/').
      const userBase = (await runner.run([PYTHON, '-c', "'import site; print(site.getuserbase())'"])).replace(
        /\n$/,
        '',
      );
      runner.env.PATH = process.env.PATH ? `${process.env.PATH}:${userBase}/bin/` : `${userBase}/bin/`;
      await installWithPip(ctx, runner, pkg);
      if (!(await runner.run([PYTHON, '-m', 'pip', 'list'])).includes('ansible'))
        throw new ModuleError(MODULE, 'command: ansible is not installed');
    } else {
      // The distro's package is installed as root; ansible's commands then run as run_user, as 25.1's
      // AnsiblePullDistro does.
      runner = new AnsibleRunner(ctx, a.run_user);
      if (!(await whichInTarget(ctx.platform, 'ansible'))) await installPackages(ctx, MODULE, [pkg]);
      if (!(await whichInTarget(ctx.platform, 'ansible')))
        throw new ModuleError(MODULE, 'command: ansible is not installed');
    }
    if (a.ansible_config !== undefined) runner.env[CFG_OVERRIDE] = a.ansible_config;

    if (a.galaxy instanceof RefusedSetting) ctx.recoverable('WARNING', a.galaxy.message);
    else
      for (const action of a.galaxy ?? []) {
        if (action instanceof RefusedSetting) throw new ModuleError(MODULE, action.message);
        await runner.run(action);
      }
    if (a.pull) {
      const v = versionOf(await runner.run(['ansible-pull', '--version']));
      if (!v) ctx.recoverable('WARNING', 'Cannot parse ansible version');
      else if (below(v, [2, 7, 0]) && a.pull.diff)
        throw new ModuleError(
          MODULE,
          `Ansible version ${v.slice(0, 3).join('.')}doesn't support --diff flag, exiting.`,
        );
      const out = await runner.run(pullArgv(a.pull));
      if (out) await ctx.output(out);
    }
    for (const repo of a.setup_controller?.repositories ?? []) {
      if (repo instanceof RefusedSetting) throw new ModuleError(MODULE, repo.message);
      await runner.run(['git', 'clone', repo.source, repo.path]);
    }
    for (const entry of a.setup_controller?.run_ansible ?? []) {
      if (entry instanceof RefusedSetting) throw new ModuleError(MODULE, entry.message);
      const { playbook_dir: dir, playbook_name: name, ...rest } = entry;
      const argv = [
        'ansible-playbook',
        pyStr(name),
        ...Object.entries(rest)
          .filter(([, v]) => v !== false)
          .map(([k, v]) => `--${k.replace(/_/g, '-')}=${pyStr(v)}`),
      ];
      await runner.run(argv, pyStr(dir));
    }
  },
});
