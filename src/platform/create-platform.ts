// Makes the platform for this run: the only place that asks which OS kiln is running on.
import type { BuildFacts } from '../build-info';
import type { Log } from '../util/log';
import { DryRunPlatform } from './dry-run-platform';
import { startWithNode } from '../util/exec';
import { planAccountCommand } from './linux/accounts/dry-run-accounts';
import { loadLinuxKoffi } from './linux/koffi-loader';
import { LinuxPlatform } from './linux/linux-platform';
import { posixSpawnStarter } from './linux/posix-spawn';
import type { Platform } from './platform';
import type { Koffi } from '../util/koffi-addon';
import { WindowsPlatform } from './windows/windows-platform';

export interface PlatformChoice {
  root: string;
  dryRun: boolean;
  log: Log;
  facts: BuildFacts;
  env: NodeJS.ProcessEnv;
}

export function createPlatform(choice: PlatformChoice): Platform {
  // One koffi for posix_spawn and for the account files' fcntl lock, loaded when first needed.
  let koffi: { loaded: Koffi | undefined } | { failure: unknown } | undefined;
  const loadKoffi = (): Koffi | undefined => {
    if (!koffi) {
      try {
        koffi = { loaded: loadLinuxKoffi(choice.facts, choice.env) };
      } catch (err) {
        koffi = { failure: err };
      }
    }
    if ('failure' in koffi) throw koffi.failure;
    return koffi.loaded;
  };
  const base: Platform =
    process.platform === 'win32'
      ? new WindowsPlatform({ root: choice.root, log: choice.log, facts: choice.facts })
      : new LinuxPlatform({
          root: choice.root,
          log: choice.log,
          // KILN_COMMAND_ISOLATION=chroot for applying to a mounted image where namespaces are not wanted.
          commandIsolation: choice.env.KILN_COMMAND_ISOLATION === 'chroot' ? 'chroot' : 'sandbox',
          isolateNetwork: choice.env.KILN_ISOLATE_NETWORK === '1',
          loadKoffi,
          // KILN_POSIX_SPAWN=0 starts commands with Node's spawn (fork and exec), koffi never loaded for it: the
          // opt-out of posix_spawn for an image or an emulator where it misbehaves.
          startProcess: posixSpawnWanted(choice.env)
            ? posixSpawnStarter(
                () => {
                  const loaded = loadKoffi();
                  if (loaded) choice.log.debug('commands are started with posix_spawn');
                  return loaded;
                },
                startWithNode,
                (why) => choice.log.warn(`commands are started with Node's spawn: ${why}`),
              )
            : startWithNode,
        });
  // A Linux dry run plans the account commands it lists, so that modules after them find the accounts.
  return choice.dryRun ? new DryRunPlatform(base, process.platform === 'win32' ? undefined : planAccountCommand) : base;
}

/** Whether commands start with posix_spawn: yes unless KILN_POSIX_SPAWN is 0, false, no or off. */
export function posixSpawnWanted(env: NodeJS.ProcessEnv): boolean {
  return !/^(0|false|no|off)$/i.test(env.KILN_POSIX_SPAWN?.trim() ?? '');
}
