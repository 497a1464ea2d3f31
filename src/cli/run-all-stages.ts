// The four stages of `--all-stages` (and `init --all-stages`), synchronised with cloud-init 25.1's stage units under
// systemd.
import type { StageRunner } from '../runner/stage-runner';
import { sdNotify, StageSync } from '../runner/stage-sync';
import { tty } from '../util/on-demand-builtins';
import type { CommandContext } from './command';
import { stageExitCode } from './stage-exit-code';

/**
 * Runs the four stages. Started by systemd (NOTIFY_SOCKET set, stdin not a terminal) they are synchronised with
 * the stage units as cloud-init 25.1's all_stages does: the sockets are bound, READY=1 is sent, and each stage
 * waits for its unit's "start". Otherwise (a terminal, as cloud-init skips it; or no systemd to start the units,
 * where cloud-init would wait for ever) the stages run back to back. A dry run binds nothing.
 */
export async function runAllStages(ctx: CommandContext, runner: StageRunner): Promise<number> {
  const platform = ctx.platform();
  const log = ctx.logger.for('main.py');
  log.info('Running cloud-init in single process mode.');
  const sockets = platform.unixDatagrams && ctx.env.NOTIFY_SOCKET ? platform.unixDatagrams() : undefined;
  if (!sockets || tty().isatty(0)) {
    if (sockets) log.info('Stdin is a tty, so skipping stage synchronization protocol');
    return stageExitCode(await runner.runAllStages());
  }
  const sync = await StageSync.open(platform, sockets, (await runner.config()).paths.runDir, ctx.env, log);
  try {
    sdNotify(sockets, ctx.env, log, 'READY=1');
    await runner.runAllStages(sync);
    return sync.complete() ? 1 : 0;
  } finally {
    sync.close();
  }
}
