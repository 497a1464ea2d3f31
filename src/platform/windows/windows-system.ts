// What the cloudbase-init plugins and runner need from Windows beyond files and commands: registry, names, users,
// reboots.
import type { AdapterRef, IpFamily, IpRoute, NetAdapter } from './win32/iphlpapi';
import type { RegRoot, RegValue } from './win32/registry-value';
import type { ServiceSpec, ServiceStartType } from './win32/advapi32';

export type { AdapterRef, IpFamily, IpRoute, NetAdapter } from './win32/iphlpapi';

export type { RegRoot, RegValue } from './win32/registry-value';
export type { ServiceSpec } from './win32/advapi32';

export interface WindowsSystem {
  regGet(root: RegRoot, key: string, name: string): RegValue | undefined;
  regSet(root: RegRoot, key: string, name: string, value: RegValue): void;
  regList(root: RegRoot, key: string): Array<{ name: string; value: RegValue }> | undefined;
  regListKeys(root: RegRoot, key: string): string[] | undefined;
  regDeleteValue(root: RegRoot, key: string, name: string): void;
  regDeleteTree(root: RegRoot, key: string): void;
  /** The NetBIOS name in use now, and the one set for the next boot. */
  computerName(): { active: string; pending: string };
  /** Sets the DNS host name (and with it the NetBIOS name) for the next boot. */
  setComputerName(name: string): void;
  userExists(name: string): boolean;
  createUser(name: string, password: string, opts?: { comment?: string; passwordNeverExpires?: boolean }): void;
  setUserPassword(name: string, password: string): void;
  /** Forces a password change at the next logon. */
  expireUserPassword(name: string): void;
  /** Creates the local group when missing. */
  ensureGroup(name: string): void;
  /** Adds USER to GROUP; no error when it already is a member. */
  addUserToGroup(user: string, group: string): void;
  groupMembers(group: string): string[];
  /** Whether USER can log on with PASSWORD. */
  checkPassword(user: string, password: string): boolean;
  /** Sets the time zone by its Windows key name ('UTC', 'W. Europe Standard Time'). */
  setTimeZone(keyName: string): void;
  timeZone(): string;
  /**
   * The user's profile folder (ProfileList by SID); with CREATE, the profile is made when missing. Undefined: no such
   * user.
   */
  userProfilePath(user: string, create: boolean): string | undefined;
  /** Logs USER on and loads (so creates) the profile, as cloudbase-init does for a new user; unloaded again at once. */
  loadUserProfile(user: string, password: string): void;
  /**
   * A self-signed SHA-256/RSA-2048 certificate in LocalMachine\My: its SHA-1 thumbprint and key container (for
   * deleteCertificate).
   */
  createSelfSignedCertificate(subject: string, validDays: number): { thumbprint: string; container: string };
  /**
   * Adds a DER certificate to LocalMachine\STORE ('Root', 'TrustedPeople' …); its thumbprint and UPN ('' when none).
   */
  importCertificate(der: Uint8Array, store: string): { thumbprint: string; upn: string };
  /**
   * Imports a PFX into the LocalMachine (MACHINE) or LocalSystem's CurrentUser stores: keyed certificates to STORE, the
   * chain to CA.
   */
  importPfx(
    pfx: Uint8Array,
    password: string,
    store: string,
    machine: boolean,
  ): Array<{ thumbprint: string; store: string }>;
  /**
   * A self-signed certificate with a new machine key in LocalMachine\\STORE for a key exchange (Azure's transport
   * certificate): its thumbprint, DER and key container, for decryptEnvelopedMessage and deleteCertificate.
   */
  createTransportCertificate(
    subject: string,
    store: string,
  ): { thumbprint: string; der: Uint8Array; container: string };
  /**
   * The content of a CMS EnvelopedData (DER) addressed to the certificate whose key is in the machine key CONTAINER.
   */
  decryptEnvelopedMessage(cms: Uint8Array, container: string): Uint8Array;
  /** Removes a certificate from LocalMachine\\STORE and its key container; false when it was not there. */
  deleteCertificate(thumbprint: string, store: string, container?: string): boolean;
  /** Thumbprints of LocalMachine\\STORE's certificates, newest first. */
  certificateThumbprints(store: string): string[];
  /** Mounted volumes with a medium: drive root ('D:\\') and label. */
  volumes(): Array<{ root: string; label: string }>;
  /** SERVICE_STOPPED 1 … SERVICE_RUNNING 4; undefined when the service is not installed. */
  serviceState(name: string): number | undefined;
  /** Installs a service (LocalSystem unless SPEC names an account). */
  createService(spec: ServiceSpec): void;
  /** Marks the service for deletion; false when there was none. */
  deleteService(name: string): boolean;
  /** Asks the service to stop and waits up to TIMEOUT_MS (default 60 s) for it to be stopped. */
  stopService(name: string, timeoutMs?: number): Promise<void>;
  startService(name: string): void;
  setServiceStartType(name: string, startType: keyof typeof ServiceStartType): void;
  /** The four-part file version of the executable or DLL at PATH (its VS_FIXEDFILEINFO). */
  fileVersion(path: string): [number, number, number, number];
  /** Network adapters with their MAC, GUID, addresses and MTU (GetAdaptersAddresses). */
  netAdapters(): NetAdapter[];
  /** The routes of FAMILY in the routing table now (GetIpForwardTable2). */
  routes(family: IpFamily): IpRoute[];
  /** Adds a static address now; false when the adapter already had it. */
  addIpAddress(adapter: AdapterRef, address: string, prefixLength: number, family: IpFamily): boolean;
  addRoute(
    adapter: AdapterRef,
    route: { destination: string; prefixLength: number; nextHop: string; family: IpFamily; metric?: number },
  ): boolean;
  setInterfaceMtu(adapter: AdapterRef, family: IpFamily, mtu: number): void;
  /**
   * The raw data of DHCP OPTION in the lease of the adapter with GUID ('{…}'); undefined when absent (dhcpcsvc
   * DhcpRequestParams).
   */
  dhcpOption(adapterGuid: string, option: number): Uint8Array | undefined;
  /** Drive letters on fixed disks with their NT device ('\\Device\\HarddiskVolume2'), in drive letter order. */
  fixedVolumes(): Array<{ root: string; device: string | undefined }>;
  /** The physical disk number of the volume at ROOT; undefined when it spans disks or has no extent. */
  volumeDiskNumber(root: string): number | undefined;
  /** A new random MBR signature or GPT disk GUID for the disk; the new id as text. */
  setUniqueDiskId(diskNumber: number): string;
  /**
   * Grows the partition of the volume at ROOT ('C:\\') into the free space after it, then its file system; bytes gained
   * (0: none, with why).
   */
  extendVolume(root: string): { bytes: number; reason?: string };
  /** Asks Windows to restart in TIMEOUT seconds (SeShutdownPrivilege enabled first). */
  reboot(message: string, timeoutSeconds?: number): void;
}
