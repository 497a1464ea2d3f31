// A serial port in raw mode through libc's cfmakeraw (Node's setRawMode keeps ONLCR, which turns every '\n' sent into
// "\r\n").
import { PlatformError } from '../../util/errors';
import type { Koffi } from '../../util/koffi-addon';

/** struct termios is 60 bytes on glibc for x86-64 and arm64 (kiln's targets); a little more is given, never read. */
const TERMIOS_BYTES = 64;
const TCSANOW = 0;

export type MakeRaw = (fd: number) => void;

/**
 * tcgetattr, cfmakeraw (no echo, no line editing, no CR/NL translation either way, 8 bits), tcsetattr: what pyserial
 * does to a port it opens.
 */
export function bindMakeRaw(koffi: Koffi): MakeRaw {
  const libc = koffi.load('libc.so.6');
  const tcgetattr = libc.func('int tcgetattr(int fd, void *termios)') as (fd: number, t: Buffer) => number;
  const cfmakeraw = libc.func('void cfmakeraw(void *termios)') as (t: Buffer) => void;
  const tcsetattr = libc.func('int tcsetattr(int fd, int action, void *termios)') as (
    fd: number,
    action: number,
    t: Buffer,
  ) => number;
  return (fd) => {
    const t = Buffer.alloc(TERMIOS_BYTES);
    if (tcgetattr(fd, t) !== 0) throw new PlatformError(`tcgetattr failed with errno ${koffi.errno()}`);
    cfmakeraw(t);
    if (tcsetattr(fd, TCSANOW, t) !== 0) throw new PlatformError(`tcsetattr failed with errno ${koffi.errno()}`);
  };
}
