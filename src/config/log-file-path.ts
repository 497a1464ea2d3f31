// Where cloudbase-init's log goes, from log_file and log_dir, as oslo.log's _get_log_file_path decides it.

/**
 * log_file alone is the path; with log_dir it is joined under it (an absolute log_file stays as it is, as Python's
 * os.path.join on Windows); log_dir alone gets `cloudbase-init.log` (oslo.log names it after the program); neither:
 * no log file.
 */
export function logFilePath(
  logFile: string | undefined,
  logDir: string | undefined,
  program = 'cloudbase-init',
): string | undefined {
  if (!logDir) return logFile;
  const name = logFile ?? `${program}.log`;
  if (/^(?:[A-Za-z]:)?[\\/]/.test(name)) return name;
  return `${logDir.replace(/[\\/]+$/, '')}\\${name}`;
}
