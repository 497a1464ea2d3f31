// cloud-init 25.1's stage synchronisation (cloudinit/socket.py's SocketSync): cloud-init-main.service runs every
// stage in one process, and each stage waits for its unit (cloud-init-local, -network, cloud-config, cloud-final)
// to send "start" on an AF_UNIX datagram socket under /run/cloud-init/share/; when the stage is done, the process
// answers on the unit's -return socket with a line of shell the unit runs: an echo and the stage's exit code.
import { posix } from 'node:path';
import type { Platform, UnixDatagrams, UnixDatagramSocket } from '../platform/platform';
import { describeError, KilnError } from '../util/errors';
import type { Log } from '../util/log';
import type { StageName } from './status-file';

/** The socket name of each stage: /run/cloud-init/share/NAME.sock, and NAME-return.sock on the unit's side. */
export const SYNC_NAMES: Record<StageName, string> = {
  'init-local': 'local',
  init: 'network',
  'modules-config': 'config',
  'modules-final': 'final',
};

/** What the unit of a stage that threw is told to say (cloud-init's words). */
export const FATAL_STAGE_MESSAGE =
  'fatal error, run "systemctl status cloud-init-main.service" and "cloud-init status --long" for more details';

export class StageSyncError extends KilnError {
  override readonly name = 'StageSyncError';
}

/** Sends sd_notify's MESSAGE to NOTIFY_SOCKET; nothing when not started by systemd. */
export function sdNotify(sockets: UnixDatagrams, env: NodeJS.ProcessEnv, log: Log, message: string): void {
  const path = env.NOTIFY_SOCKET ?? '';
  if (!path) return;
  if (!path.startsWith('/') && !path.startsWith('@'))
    throw new StageSyncError(`NOTIFY_SOCKET=${path}: not a unix socket path`);
  log.info(`Sending sd_notify(${message})`);
  sockets.send(path, Buffer.from(message, 'ascii'));
}

/** Waits for each stage's unit and answers it; one socket per stage, bound before READY=1 so no "start" is lost. */
export class StageSync {
  private firstException = '';
  private anyError = false;

  private constructor(
    private readonly sockets: UnixDatagrams,
    private readonly bound: Map<StageName, { socket: UnixDatagramSocket; returnPath: string }>,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: Log,
  ) {}

  /** Makes RUN_DIR/share (0700), replaces stale sockets and binds the four (cloud-init's SocketSync.__init__). */
  static async open(
    platform: Platform,
    sockets: UnixDatagrams,
    runDir: string,
    env: NodeJS.ProcessEnv,
    log: Log,
  ): Promise<StageSync> {
    const share = posix.join(runDir, 'share');
    await platform.mkdir(share, { mode: 0o700 });
    const hostShare = (await platform.resolvedHostPath?.(share)) ?? platform.hostPath(share);
    const bound = new Map<StageName, { socket: UnixDatagramSocket; returnPath: string }>();
    try {
      for (const [stage, name] of Object.entries(SYNC_NAMES) as [StageName, string][]) {
        await platform.remove(posix.join(share, `${name}.sock`));
        bound.set(stage, {
          socket: sockets.bind(posix.join(hostShare, `${name}.sock`)),
          returnPath: posix.join(hostShare, `${name}-return.sock`),
        });
      }
    } catch (err) {
      for (const { socket } of bound.values()) socket.close();
      throw err;
    }
    return new StageSync(sockets, bound, env, log);
  }

  notify(message: string): void {
    sdNotify(this.sockets, this.env, this.log, message);
  }

  /** Blocks until STAGE's unit sent "start" from its -return socket (cloud-init's SocketSync.__enter__). */
  async waitForStart(stage: StageName): Promise<void> {
    const { socket, returnPath } = this.slot(stage);
    const name = SYNC_NAMES[stage];
    this.notify(`STATUS=Waiting on external services to complete before starting the ${name} stage.`);
    const started = Date.now();
    const { data, from } = await socket.receive(5);
    this.log.debug(`Waiting to start stage ${name} took ${((Date.now() - started) / 1000).toFixed(3)} seconds`);
    if (data.toString('latin1') !== 'start') {
      this.answerTo(stage, from, `Completed socket interaction for boot stage ${name}`, 0);
      throw new StageSyncError(
        `Received invalid message: [${JSON.stringify(data.toString('latin1'))}] on ${socket.path}; the ${name} stage's unit must send "start"`,
      );
    }
    if (from !== returnPath) {
      this.answerTo(stage, from, `Completed socket interaction for boot stage ${name}`, 0);
      throw new StageSyncError(
        `Unexpected path to unix socket: ${from || '(unbound)'}; the ${name} stage's unit must send from ${returnPath}`,
      );
    }
    this.notify(`STATUS=Running (${name} stage)`);
  }

  /**
   * Tells STAGE's unit the stage is over (cloud-init's SocketSync.__exit__): exit EXIT_CODE, or, when the stage
   * threw ERROR, exit 1 with the fatal message; the error itself goes to the log and to systemd's status line.
   */
  finish(stage: StageName, exitCode: number, error?: unknown): void {
    const name = SYNC_NAMES[stage];
    let message = `Completed socket interaction for boot stage ${name}`;
    let code = exitCode;
    if (error !== undefined) {
      code = 1;
      const status = describeError(error);
      message = FATAL_STAGE_MESSAGE;
      if (!this.firstException) this.firstException = status;
      this.log.error(status);
      this.notify(`STATUS=${status}`);
    }
    this.anyError ||= code !== 0;
    this.answerTo(stage, this.slot(stage).returnPath, message, code);
  }

  /** After the last stage: systemd's final status line and STOPPING=1; whether any stage failed. */
  complete(): boolean {
    if (this.anyError) {
      const why = this.firstException
        ? `first exception received: ${this.firstException}`
        : 'a stage of cloud-init exited non-zero';
      this.notify(`STATUS=Completed with failure, ${why}. Run 'cloud-init status --long' for more details.`);
    } else {
      this.notify('STATUS=Completed');
    }
    this.notify('STOPPING=1');
    return this.anyError;
  }

  close(): void {
    for (const { socket } of this.bound.values()) socket.close();
  }

  private slot(stage: StageName): { socket: UnixDatagramSocket; returnPath: string } {
    const slot = this.bound.get(stage);
    if (!slot) throw new StageSyncError(`no socket for stage ${stage}`);
    return slot;
  }

  /** The unit pipes the answer into sh: fixed words only, never text from the boot (nothing to escape). */
  private answerTo(stage: StageName, path: string, message: string, code: number): void {
    if (!path) return;
    try {
      this.slot(stage).socket.sendTo(path, Buffer.from(`echo '${message}'; exit ${code};`));
    } catch (err) {
      this.log.warn(`the ${SYNC_NAMES[stage]} stage's unit could not be answered: ${describeError(err)}`);
    }
  }
}
