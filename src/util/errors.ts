// Error classes with a reason a person can act on; every error kiln reports is one of these.

/** Base of kiln's errors: `message` says what went wrong and, where known, where (file, key, line). */
export class KilnError extends Error {
  override readonly name: string = 'KilnError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * An error about one named thing (a module, a datasource, a plugin, a user-data part): the message starts with its
 * name.
 */
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

/** What to tell a person for the system errors a boot meets most: the cause in words, and what to do. */
const SYSTEM_REASONS: Record<string, string> = {
  EROFS: 'the file system is read-only (remount it read-write, or give --root a writable copy)',
  ENOSPC: 'no space is left on the device (free some, or grow the file system)',
  EDQUOT: 'the disk quota is used up',
  EACCES: 'permission denied (kiln needs root for this)',
  EPERM:
    'the operation is not permitted (kiln needs root for this; an immutable file or a read-only bind mount also refuses it)',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder, not a file',
  EMFILE: 'too many open files',
  EIO: 'an input/output error (the disk may be failing)',
};

/**
 * Renders an unknown thrown value as one line for logs and stderr; a Node system error names its path and cause in
 * words.
 */
export function describeError(err: unknown): string {
  const sys = err as NodeJS.ErrnoException;
  if (
    err instanceof Error &&
    typeof sys.code === 'string' &&
    typeof sys.syscall === 'string' &&
    SYSTEM_REASONS[sys.code]
  ) {
    return `cannot ${sys.syscall}${sys.path ? ` ${sys.path}` : ''}: ${SYSTEM_REASONS[sys.code]} [${sys.code}]`;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}
