// Whole-file POSIX record locks (fcntl F_SETLK / F_GETLK) through libc, for the lock glibc's lckpwdf() takes.
import { PlatformError } from '../../util/errors';
import type { Koffi } from '../../util/koffi-addon';

/** A whole-file write lock on an open descriptor, as fcntl(2) gives it. */
export interface RecordLocks {
  /**
   * Takes the write lock on FD without waiting: true when taken, false when another process holds a lock on the file.
   */
  tryWriteLock(fd: number): boolean;
  /** The pid of a process whose lock keeps FD's write lock from being taken; undefined when none does now. */
  holder(fd: number): number | undefined;
}

// Linux's values on x86-64 and arm64 alike (the targets kiln builds for): asm-generic fcntl.h.
const F_GETLK = 5;
const F_SETLK = 6;
const F_WRLCK = 1;
const F_UNLCK = 2;
const SEEK_SET = 0;
const EAGAIN = 11;
const EACCES = 13;
const EINTR = 4;
/**
 * struct flock on 64-bit Linux: short l_type, short l_whence, (4 bytes of padding), off_t l_start, off_t l_len,
 * pid_t l_pid, (4 bytes of padding). l_start = l_len = 0 with SEEK_SET is the whole file, however long it grows.
 */
const FLOCK_BYTES = 32;
const L_PID_OFFSET = 24;

function wholeFileWriteLock(): Buffer {
  const flock = Buffer.alloc(FLOCK_BYTES);
  flock.writeInt16LE(F_WRLCK, 0);
  flock.writeInt16LE(SEEK_SET, 2);
  return flock;
}

export function bindRecordLocks(koffi: Koffi): RecordLocks {
  const libc = koffi.load('libc.so.6');
  // fcntl is variadic: its third argument is given with its type at each call.
  const fcntl = libc.func('int fcntl(int fd, int cmd, ...)') as (
    fd: number,
    cmd: number,
    type: string,
    arg: Buffer,
  ) => number;
  const call = (fd: number, cmd: number, flock: Buffer): number => {
    for (;;) {
      if (fcntl(fd, cmd, 'void *', flock) === 0) return 0;
      const errno = koffi.errno();
      if (errno !== EINTR) return errno;
    }
  };
  return {
    tryWriteLock(fd) {
      const errno = call(fd, F_SETLK, wholeFileWriteLock());
      if (errno === 0) return true;
      if (errno === EAGAIN || errno === EACCES) return false;
      throw new PlatformError(`fcntl(F_SETLK) failed with errno ${errno}`);
    },
    holder(fd) {
      const flock = wholeFileWriteLock();
      const errno = call(fd, F_GETLK, flock);
      if (errno !== 0) throw new PlatformError(`fcntl(F_GETLK) failed with errno ${errno}`);
      return flock.readInt16LE(0) === F_UNLCK ? undefined : flock.readInt32LE(L_PID_OFFSET);
    },
  };
}
