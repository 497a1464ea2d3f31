// What `kiln check` reports: one leftover or missing piece of an image, how bad it is, and what to run.

export type Severity = 'error' | 'warning';

export interface Finding {
  /** The check that found it: 'boot-units', 'machine-id', 'ssh-host-keys' … */
  check: string;
  severity: Severity;
  /** The file or folder it is about, inside the image. */
  path: string;
  message: string;
  /** The command (or edit) that mends it, run inside the image before capture. */
  fix: string;
}

/** What one check reads: files inside the image, through the Platform. */
export interface ImageFiles {
  exists(path: string): Promise<boolean>;
  listDir(path: string): Promise<string[]>;
  readTextIfExists(path: string): Promise<string | undefined>;
  readLink(path: string): Promise<string | undefined>;
  /** Size and permission bits; undefined when the path does not exist. */
  stat(path: string): Promise<{ type: string; mode: number; size: number } | undefined>;
}
