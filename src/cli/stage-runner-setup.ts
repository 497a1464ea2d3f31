// Builds the stage runner for a CLI command: the real dependencies, and cloud-init.log inside the target root.
import { KILN_CLOUD_INIT_VERSION } from '../build-info';
import { parseYamlConfig, type ConfigMap } from '../config/parse-yaml-config';
import { defaultRunnerDeps } from '../runner/default-deps';
import type { RunnerDeps } from '../runner/runner-deps';
import { StageRunner } from '../runner/stage-runner';
import { FileSink } from '../util/log';
import type { CommandContext } from './command';
import { fsPromises } from '../util/on-demand-builtins';

/** Tests swap the dependencies through this hook on the context's env-free path; the CLI uses the defaults. */
export async function createStageRunner(
  ctx: CommandContext,
  opts: { file?: string | undefined; print?: boolean; deps?: RunnerDeps } = {},
): Promise<StageRunner> {
  const platform = ctx.platform();
  const deps =
    opts.deps ??
    defaultRunnerDeps({
      platform,
      embeddedConfig: ctx.facts.defaultCloudConfig,
      cloudInitVersion: KILN_CLOUD_INIT_VERSION,
      env: ctx.env,
      log: ctx.logger.for('util.py'),
      dryRun: ctx.dryRun,
    });
  let extraConfig: ConfigMap | undefined;
  if (opts.file) extraConfig = parseYamlConfig(await fsPromises().readFile(opts.file, 'utf8'), opts.file);
  const runner = new StageRunner({
    platform,
    logger: ctx.logger,
    deps,
    ...(opts.print ? { print: (t: string) => ctx.io.out(t) } : {}),
    ...(extraConfig ? { extraConfig } : {}),
  });
  if (!ctx.dryRun) {
    const rc = await runner.config();
    // The whole run at DEBUG in the target's log file, as cloud-init logs it.
    // Resolved inside the root: a log file that links elsewhere in a --root sandbox must not append to a host file.
    const logFile = (await platform.resolvedHostPath?.(rc.paths.logFile)) ?? platform.hostPath(rc.paths.logFile);
    ctx.logger.addSink(new FileSink('DEBUG', logFile, 0o640));
  }
  return runner;
}
