// The running Windows as a platform that changes it reaches it: what the cloudbase-init plugins need beyond files
// and commands (WindowsSystem) and the Win32 calls themselves, for the service commands and the probe.
import type { Advapi32 } from './win32/advapi32';
import type { Crypt32 } from './win32/crypt32';
import type { Dhcpcsvc } from './win32/dhcpcsvc';
import type { Iphlpapi } from './win32/iphlpapi';
import type { Kernel32, Kernel32Disk, Kernel32Volumes } from './win32/kernel32';
import type { Netapi32 } from './win32/netapi32';
import type { Ntdll } from './win32/ntdll';
import type { Userenv } from './win32/userenv';
import type { VersionApi } from './win32/version';
import type { WindowsSystem } from './windows-system';

export interface Win32Bindings {
  kernel32: Kernel32;
  ntdll: Ntdll;
  advapi32: Advapi32;
  netapi32: Netapi32;
  iphlpapi: Iphlpapi;
  userenv: Userenv;
  crypt32: Crypt32;
  /** Drive letters, labels and raw reads (src/devices' part of kernel32). */
  disk: Kernel32Disk;
  /** Disk layouts and the grow/extend ioctls (ExtendVolumesPlugin's part of kernel32). */
  volumes: Kernel32Volumes;
  dhcpcsvc: Dhcpcsvc;
  /** File versions (version.dll). */
  version: VersionApi;
}

export interface WindowsMachine extends WindowsSystem {
  /** The Win32 API, bound on first use. */
  win32(): Win32Bindings;
}
