// cc_ubuntu_autoinstall: only checks an `autoinstall` section for Ubuntu's live installer (which itself acts on it).
import { isRecord } from './support/config-shapes';
import { configModule } from './support/config-module';
import { OwnParser } from './support/config-readers';
import { waitForSnapSeeded } from './support/snap-seeded';
import { ModuleError, type Module } from './module';
import { pyTypeName } from '../util/python-type-name';

/** The installer snaps cloud-init 22.4 looks for in `snap list`. */
export const LIVE_INSTALLER_SNAPS = ['subiquity', 'ubuntu-desktop-installer'];

/** The one schema problem cloud-init reports for AUTOINSTALL (a mapping with an integer `version`), or undefined. */
export function autoinstallProblem(autoinstall: unknown): string | undefined {
  if (!isRecord(autoinstall)) return `autoinstall: Expected dict type but found: ${pyTypeName(autoinstall)}`;
  if (!('version' in autoinstall)) return "autoinstall: Missing required 'version' key";
  const version = autoinstall.version;
  // Python's isinstance(x, int) accepts booleans too.
  if (!(typeof version === 'boolean' || (typeof version === 'number' && Number.isInteger(version)))) {
    return `autoinstall.version: Expected int type but found: ${pyTypeName(version)}`;
  }
  return undefined;
}

/** The autoinstall section as the module judges it: the installer acts on it; the module only names its problem. */
interface AutoinstallCheck {
  /** What is wrong with the section, in cloud-init's words (autoinstallProblem); undefined when nothing is. */
  readonly problem: string | undefined;
}

export const ubuntuAutoinstallModule: Module = configModule({
  name: 'ubuntu_autoinstall',
  stage: 'config',
  frequency: 'once',
  distros: ['ubuntu'],
  activateBy: ['autoinstall'],
  // 25.1's module runs for any autoinstall value its schema rejects: without an installer snap it only warns.
  configKeys: { autoinstall: new OwnParser((value): AutoinstallCheck => ({ problem: autoinstallProblem(value) })) },
  async run(ctx, cfg): Promise<void> {
    if (cfg.autoinstall === undefined) {
      ctx.log.debug("Skipping module named ubuntu_autoinstall, no 'autoinstall' key in configuration");
      return;
    }
    await waitForSnapSeeded(ctx);
    const snaps = (await ctx.platform.run(['snap', 'list'])).stdout;
    // The last listed snap found wins, as in cloud-init's loop; a plain substring search like its re.search.
    const installer = [...LIVE_INSTALLER_SNAPS].reverse().find((name) => snaps.includes(name));
    if (!installer) {
      ctx.log.warn(
        `Skipping autoinstall module. Expected one of the Ubuntu installer snap packages to be present: ${LIVE_INSTALLER_SNAPS.join(', ')}`,
      );
      return;
    }
    const { problem } = cfg.autoinstall;
    if (problem) throw new ModuleError('ubuntu_autoinstall', `Cloud config schema errors: ${problem}`);
    ctx.log.debug(`Valid autoinstall schema. Config will be processed by ${installer}`);
  },
});
