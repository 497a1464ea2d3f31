// cc_ansible: installs ansible (distro package or pip, as run_user), then runs ansible-galaxy actions, ansible-pull and
// the controller's clones and playbooks.
import { isRecord } from './support/config-shapes';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';
import { pyStr } from '../util/python-str';
import { ModuleError, type CloudConfig, type Module, type ModuleContext } from './module';

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
  argv(command: string[], cwd?: string): string[] {
    if (!this.runUser) return command;
    return ['su', '-', this.runUser, '-c', `${cwd ? `cd ${cwd} && ` : ''}env PATH=$PATH ${command.join(' ')}`];
  }

  async run(command: string[], cwd?: string): Promise<string> {
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

/** validate_config: the keys cloud-init requires before doing anything. */
export function validateAnsibleConfig(a: Record<string, unknown>): void {
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
export function flagArgs(cfg: Record<string, unknown>): string[] {
  return Object.entries(cfg)
    .filter(([, v]) => v !== false)
    .map(([k, v]) => (v === true ? `--${k.replace(/_/g, '-')}` : `--${k.replace(/_/g, '-')}=${pyStr(v)}`));
}

/** The ansible-pull argv cloud-init builds from `pull` (playbook_name last). */
export function pullArgv(pull: Record<string, unknown>): string[] {
  const { playbook_name: playbook, ...rest } = pull;
  return ['ansible-pull', ...flagArgs(rest), pyStr(playbook)];
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

export const ansibleModule: Module = {
  name: 'ansible',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['ansible'],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    const a = cfg.ansible ?? {};
    if (!isRecord(a)) throw new ModuleError(MODULE, `'ansible' must be a mapping, not ${JSON.stringify(a)}`);
    if (Object.keys(a).length === 0) return;
    validateAnsibleConfig(a);
    const runUser = typeof a.run_user === 'string' && a.run_user ? a.run_user : undefined;
    const pkg = pyStr(a.package_name);
    let runner: AnsibleRunner;
    if (a.install_method === 'pip') {
      runner = new AnsibleRunner(ctx, runUser);
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
      runner = new AnsibleRunner(ctx, undefined);
      if (!(await whichInTarget(ctx.platform, 'ansible'))) await installPackages(ctx, MODULE, [pkg]);
      if (!(await whichInTarget(ctx.platform, 'ansible')))
        throw new ModuleError(MODULE, 'command: ansible is not installed');
    }
    if (a.ansible_config) runner.env[CFG_OVERRIDE] = pyStr(a.ansible_config);

    if (a.galaxy) {
      const actions = isRecord(a.galaxy) && Array.isArray(a.galaxy.actions) ? a.galaxy.actions : [];
      if (actions.length === 0) ctx.recoverable('WARNING', `Invalid config: ${JSON.stringify(a.galaxy)}`);
      for (const action of actions) {
        if (!Array.isArray(action))
          throw new ModuleError(
            MODULE,
            `ansible.galaxy.actions: each action is a command list, not ${JSON.stringify(action)}`,
          );
        await runner.run(action.map(String));
      }
    }
    if (a.pull) {
      const pull = a.pull as Record<string, unknown>;
      const v = versionOf(await runner.run(['ansible-pull', '--version']));
      if (!v) ctx.recoverable('WARNING', 'Cannot parse ansible version');
      else if (below(v, [2, 7, 0]) && pull.diff)
        throw new ModuleError(
          MODULE,
          `Ansible version ${v.slice(0, 3).join('.')}doesn't support --diff flag, exiting.`,
        );
      const out = await runner.run(pullArgv(pull));
      if (out) await ctx.output(out);
    }
    if (a.setup_controller) {
      const c = a.setup_controller as Record<string, unknown>;
      for (const repo of Array.isArray(c.repositories) ? c.repositories : []) {
        const r = isRecord(repo) ? repo : {};
        if (r.source === undefined || r.path === undefined)
          throw new ModuleError(MODULE, 'ansible.setup_controller.repositories: each entry needs source and path');
        await runner.run(['git', 'clone', pyStr(r.source), pyStr(r.path)]);
      }
      for (const entry of Array.isArray(c.run_ansible) ? c.run_ansible : []) {
        if (!isRecord(entry) || entry.playbook_dir === undefined || entry.playbook_name === undefined)
          throw new ModuleError(
            MODULE,
            'ansible.setup_controller.run_ansible: each entry needs playbook_dir and playbook_name',
          );
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
    }
  },
};
