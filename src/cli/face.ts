// Which program kiln is being: picked from the name it was invoked by.

export type Face = 'kiln' | 'cloud-init' | 'cloudbase-init';

/** The face for an invocation name (argv0) such as `/usr/bin/cloud-init` or `C:\...\cloudbase-init.exe`. */
export function faceFromInvocation(argv0: string, override?: string): Face {
  if (override === 'kiln' || override === 'cloud-init' || override === 'cloudbase-init') return override;
  const base =
    argv0
      .split(/[\\/]/)
      .pop()
      ?.toLowerCase()
      .replace(/\.exe$/, '') ?? '';
  if (base === 'cloud-init') return 'cloud-init';
  if (base === 'cloudbase-init') return 'cloudbase-init';
  return 'kiln';
}
