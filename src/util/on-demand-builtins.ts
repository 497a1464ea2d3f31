// Node built-in modules that most boots never use, loaded on first use instead of at start: a static import
// is evaluated when the bundle starts, and each of these costs 1-4 ms of every start (child_process brings
// dgram with it; fs/promises brings readline and the streams; net is only needed to check addresses in a
// network config; zlib only matters for compressed data; timers/promises only for `status --wait`).
import type * as ChildProcess from 'node:child_process';
import type * as FsPromises from 'node:fs/promises';
import type * as Net from 'node:net';
import type * as TimersPromises from 'node:timers/promises';
import type * as Tty from 'node:tty';
import type * as Zlib from 'node:zlib';

export const childProcess = (): typeof ChildProcess => process.getBuiltinModule('node:child_process');
export const fsPromises = (): typeof FsPromises => process.getBuiltinModule('node:fs/promises');
export const net = (): typeof Net => process.getBuiltinModule('node:net');
export const zlib = (): typeof Zlib => process.getBuiltinModule('node:zlib');
export const timersPromises = (): typeof TimersPromises => process.getBuiltinModule('node:timers/promises');
export const tty = (): typeof Tty => process.getBuiltinModule('node:tty');
