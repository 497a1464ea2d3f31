// Error classes with a reason a person can act on; every error kiln reports is one of these.

/** Base of kiln's errors: `message` says what went wrong and, where known, where (file, key, line). */
export class KilnError extends Error {
  override readonly name: string = 'KilnError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** An error about one named thing (a module, a datasource, a plugin, a user-data part): the message starts with its name. */
export class SubjectError extends KilnError {
  override readonly name: string = 'SubjectError';
  constructor(
    readonly subject: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${subject}: ${message}`, options);
  }
}

/** Bad command-line use: unknown command or flag, missing argument. Exit code 2. */
export class UsageError extends KilnError {
  override readonly name = 'UsageError';
}

/** A configuration file or key that cannot be used as given. */
export class ConfigError extends KilnError {
  override readonly name = 'ConfigError';
}

/** An effect on the operating system (file, command, registry …) that failed. */
export class PlatformError extends KilnError {
  override readonly name = 'PlatformError';
}

/** Renders an unknown thrown value as one line for logs and stderr. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
