// Reading a file an image names without blocking on it: a FIFO (or a socket) at a config or seed path would stop the
// boot until something wrote to it, and a device node inside a --root sandbox is the host's device.
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { PlatformError } from '../../util/errors';

/** What a file that is not a regular one is, in words for an error. */
export function fileKind(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a folder';
  return 'a device node';
}

/**
 * The bytes of HOST_PATH (shown as PATH), opened without blocking and checked before the first read: a FIFO or a
 * socket is refused everywhere, a device node only under a sandbox root (SANDBOXED), where it is the host's.
 */
export function readRegularFile(hostPath: string, path: string, sandboxed: boolean): Buffer {
  const fd = openSync(hostPath, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const st = fstatSync(fd);
    if (!st.isFile() && (st.isFIFO() || st.isSocket() || st.isDirectory() || sandboxed)) {
      throw new PlatformError(`cannot read ${path}: it is ${fileKind(st)}; kiln reads only regular files there`);
    }
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}
