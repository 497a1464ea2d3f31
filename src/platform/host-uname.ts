// The running kernel's facts, read from Node's os module: what every platform's uname() gives, since a --root
// sandbox runs on the same kernel as the machine.
import { hostname, machine, release, type as osType, userInfo, version } from 'node:os';
import type { Uname } from './platform';

/** os.uname() of the machine kiln runs on. */
export function hostUname(): Uname {
  return { sysname: osType(), nodename: hostname(), release: release(), version: version(), machine: machine() };
}

/** getpass.getuser(): the user kiln runs as. */
export function hostUser(): string {
  return userInfo().username;
}
