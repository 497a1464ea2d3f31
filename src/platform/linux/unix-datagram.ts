// AF_UNIX datagram sockets through libc (Node has none): what cloud-init 25.1's stage units and sd_notify speak.
import { describeError, PlatformError } from '../../util/errors';
import type { Koffi } from '../../util/koffi-addon';
import type { UnixDatagramSocket, UnixDatagrams } from '../platform';

// Linux's values on x86-64 and arm64 alike (the targets kiln builds for).
const AF_UNIX = 1;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const EINTR = 4;
/** struct sockaddr_un: sa_family_t (2 bytes), then sun_path[108]. */
const SUN_PATH_OFFSET = 2;
const SUN_PATH_BYTES = 108;
const SOCKADDR_UN_BYTES = SUN_PATH_OFFSET + SUN_PATH_BYTES;

/** A sockaddr_un for PATH; a leading '@' names an abstract socket (sd_notify's NOTIFY_SOCKET may). */
function sockaddr(path: string): { addr: Buffer; len: number } {
  const name = Buffer.from(path.startsWith('@') ? `\0${path.slice(1)}` : path, 'utf8');
  const abstract = path.startsWith('@');
  if (name.length + (abstract ? 0 : 1) > SUN_PATH_BYTES)
    throw new PlatformError(
      `the unix socket path ${path} is longer than the ${SUN_PATH_BYTES - 1} bytes a socket address holds`,
    );
  const addr = Buffer.alloc(SOCKADDR_UN_BYTES);
  addr.writeUInt16LE(AF_UNIX, 0);
  name.copy(addr, SUN_PATH_OFFSET);
  return { addr, len: SUN_PATH_OFFSET + name.length + (abstract ? 0 : 1) };
}

/** The path in a sockaddr_un recvfrom filled in (LEN bytes of it); '' for an unbound sender. */
function pathOf(addr: Buffer, len: number): string {
  const bytes = addr.subarray(SUN_PATH_OFFSET, Math.max(SUN_PATH_OFFSET, Math.min(len, SOCKADDR_UN_BYTES)));
  if (bytes.length === 0) return '';
  if (bytes[0] === 0) return `@${bytes.subarray(1).toString('utf8')}`;
  const nul = bytes.indexOf(0);
  return bytes.subarray(0, nul < 0 ? bytes.length : nul).toString('utf8');
}

type RecvFrom = ((fd: number, buf: Buffer, len: number, flags: number, addr: Buffer, addrlen: Buffer) => number) & {
  async: (
    fd: number,
    buf: Buffer,
    len: number,
    flags: number,
    addr: Buffer,
    addrlen: Buffer,
    cb: (err: unknown, n: number) => void,
  ) => void;
};

export function bindUnixDatagrams(koffi: Koffi): UnixDatagrams {
  const libc = koffi.load('libc.so.6');
  const socket = libc.func('int socket(int domain, int type, int protocol)') as (
    d: number,
    t: number,
    p: number,
  ) => number;
  const bind = libc.func('int bind(int fd, void *addr, uint32_t len)') as (
    fd: number,
    addr: Buffer,
    len: number,
  ) => number;
  const sendto = libc.func(
    'intptr_t sendto(int fd, void *buf, size_t len, int flags, void *addr, uint32_t addrlen)',
  ) as (fd: number, buf: Buffer, len: number, flags: number, addr: Buffer, alen: number) => number;
  const recvfrom = libc.func(
    'intptr_t recvfrom(int fd, void *buf, size_t len, int flags, void *addr, void *addrlen)',
  ) as RecvFrom;
  const close = libc.func('int close(int fd)') as (fd: number) => number;

  const open = (): number => {
    const fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw new PlatformError(`socket(AF_UNIX, SOCK_DGRAM) failed with errno ${koffi.errno()}`);
    return fd;
  };
  const sendFrom = (fd: number, to: string, data: Uint8Array): void => {
    const { addr, len } = sockaddr(to);
    const buf = Buffer.from(data);
    if (sendto(fd, buf, buf.length, 0, addr, len) < 0)
      throw new PlatformError(`sending to the unix socket ${to} failed with errno ${koffi.errno()}`);
  };

  return {
    bind(path: string): UnixDatagramSocket {
      const { addr, len } = sockaddr(path);
      const fd = open();
      if (bind(fd, addr, len) !== 0) {
        const errno = koffi.errno();
        close(fd);
        throw new PlatformError(`binding the unix socket ${path} failed with errno ${errno}`);
      }
      let closed = false;
      return {
        path,
        receive(maxBytes: number): Promise<{ data: Buffer; from: string }> {
          // On one of libuv's worker threads: a datagram may be hours away, and the event loop must go on meanwhile.
          return new Promise((resolve, reject) => {
            const attempt = (): void => {
              const buf = Buffer.alloc(maxBytes);
              const from = Buffer.alloc(SOCKADDR_UN_BYTES);
              const fromLen = Buffer.alloc(4);
              fromLen.writeUInt32LE(SOCKADDR_UN_BYTES, 0);
              recvfrom.async(fd, buf, maxBytes, 0, from, fromLen, (err, n) => {
                if (err)
                  return reject(
                    new PlatformError(`receiving on the unix socket ${path} failed: ${describeError(err)}`),
                  );
                if (n < 0) {
                  const errno = koffi.errno();
                  if (errno === EINTR && !closed) return attempt();
                  return reject(
                    new PlatformError(
                      `receiving on the unix socket ${path} failed${errno ? ` with errno ${errno}` : ''}`,
                    ),
                  );
                }
                resolve({ data: buf.subarray(0, n), from: pathOf(from, fromLen.readUInt32LE(0)) });
              });
            };
            attempt();
          });
        },
        sendTo(to: string, data: Uint8Array): void {
          sendFrom(fd, to, data);
        },
        close(): void {
          if (closed) return;
          closed = true;
          close(fd);
        },
      };
    },
    send(to: string, data: Uint8Array): void {
      const fd = open();
      try {
        sendFrom(fd, to, data);
      } finally {
        close(fd);
      }
    },
  };
}
