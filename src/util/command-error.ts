// A command that failed, with what cloud-init's ProcessExecutionError records (argv, exit code, output).
import { PlatformError } from './errors';

export interface CommandFailure {
  /** The command line (secrets already scrubbed). */
  argv: string[];
  /** Exit code; undefined when the program did not start or was killed. */
  code?: number;
  /** Why it did not start or finish (ENOENT, timeout …); undefined for a plain non-zero exit. */
  reason?: string;
  /** Captured output; undefined when the output went to the console instead (cloud-init's capture=False). */
  stdout?: string;
  stderr?: string;
}

export class CommandError extends PlatformError {
  readonly failure: CommandFailure;
  constructor(message: string, failure: CommandFailure) {
    super(message);
    this.failure = failure;
  }
}
