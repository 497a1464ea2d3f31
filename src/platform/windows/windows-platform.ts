// The Windows platform: files under a root folder (C:\ at boot) and commands run directly.
import { randomBytes, randomUUID } from 'node:crypto';
import { promises as fsp, type Stats } from 'node:fs';
import { win32 } from 'node:path';
import type { BuildFacts } from '../../build-info';
import type { Log } from '../../util/log';
import { describeError, PlatformError } from '../../util/errors';
import { execProcess } from '../../util/exec';
import type { FileOpts, FileStat, HostReports, OsVersion, Platform, RunOpts, RunResult, Uname } from '../platform';
import { hostUname, hostUser } from '../host-uname';
import { HostReportFiles } from '../host-report-files';
import { undefinedIfMissing } from '../missing-file';
import type { Koffi } from '../../util/koffi-addon';
import { loadKoffi } from './koffi-loader';
import { bindAdvapi32 } from './win32/advapi32';
import { bindUserenv } from './win32/userenv';
import { bindCrypt32 } from './win32/crypt32';
import { bindIphlpapi, type AdapterRef, type IpFamily, type IpRoute, type NetAdapter } from './win32/iphlpapi';
import { bindDhcpcsvc } from './win32/dhcpcsvc';
import type { ServiceSpec, ServiceStartType } from './win32/advapi32';
import { bindVersion } from './win32/version';
import {
  ComputerNameFormat,
  bindKernel32,
  bindKernel32Disk,
  bindKernel32Volumes,
  type VolumeExtent,
} from './win32/kernel32';
import { planVolumeGrowth } from './volume-growth';
import { bindNetapi32 } from './win32/netapi32';
import { bindNtdll } from './win32/ntdll';
import type { RegRoot, RegValue } from './win32/registry-value';
import type { Win32Bindings, WindowsMachine } from './windows-machine';

export type { Win32Bindings } from './windows-machine';

const TIME_ZONES_KEY = 'SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Time Zones';

export class WindowsPlatform implements Platform, WindowsMachine {
  readonly os = 'windows' as const;
  readonly root: string;
  private bindings: Win32Bindings | undefined;
  private koffi: Koffi | undefined;

  constructor(
    opts: { root: string; log: Log; facts: BuildFacts; bindings?: Win32Bindings },
    private readonly log: Log = opts.log,
    private readonly facts: BuildFacts = opts.facts,
  ) {
    this.root = opts.root === '/' || opts.root === '' ? 'C:\\' : opts.root;
    // Tests hand in fakes of the bindings: the binding boundary is where Windows is faked.
    this.bindings = opts.bindings;
  }

  /** This platform changes the running Windows itself, so it is its own WindowsMachine. */
  windows(): WindowsMachine {
    return this;
  }

  /** The Win32 API, bound on first use so commands that need none never load the addon. */
  win32(): Win32Bindings {
    if (!this.bindings) {
      this.koffi ??= loadKoffi(this.facts);
      const kernel32 = bindKernel32(this.koffi);
      this.bindings = {
        kernel32,
        ntdll: bindNtdll(this.koffi),
        advapi32: bindAdvapi32(this.koffi, kernel32),
        netapi32: bindNetapi32(this.koffi, kernel32),
        iphlpapi: bindIphlpapi(this.koffi, kernel32),
        userenv: bindUserenv(this.koffi, kernel32),
        crypt32: bindCrypt32(this.koffi, kernel32),
        disk: bindKernel32Disk(this.koffi),
        volumes: bindKernel32Volumes(this.koffi),
        dhcpcsvc: bindDhcpcsvc(this.koffi, kernel32),
        version: bindVersion(this.koffi, kernel32),
      };
    }
    return this.bindings;
  }

  regGet(root: RegRoot, key: string, name: string): RegValue | undefined {
    return this.win32().advapi32.regGetValue(root, key, name);
  }
  regSet(root: RegRoot, key: string, name: string, value: RegValue): void {
    this.log.debug(`Setting registry value ${root}\\${key}\\${name} (${value.type})`);
    this.win32().advapi32.regSetValue(root, key, name, value);
  }
  regList(root: RegRoot, key: string): Array<{ name: string; value: RegValue }> | undefined {
    return this.win32().advapi32.regListValues(root, key);
  }
  regListKeys(root: RegRoot, key: string): string[] | undefined {
    return this.win32().advapi32.regListKeys(root, key);
  }
  regDeleteValue(root: RegRoot, key: string, name: string): void {
    this.win32().advapi32.regDeleteValue(root, key, name);
  }
  regDeleteTree(root: RegRoot, key: string): void {
    this.win32().advapi32.regDeleteTree(root, key);
  }

  computerName(): { active: string; pending: string } {
    const k = this.win32().kernel32;
    const pending = this.regGet(
      'HKLM',
      'SYSTEM\\CurrentControlSet\\Control\\ComputerName\\ComputerName',
      'ComputerName',
    );
    const active = k.getComputerNameEx(ComputerNameFormat.NetBIOS);
    return { active, pending: pending?.type === 'REG_SZ' ? pending.data : active };
  }
  setComputerName(name: string): void {
    this.log.info(`Setting the computer name to ${name} (applied at the next boot)`);
    this.win32().kernel32.setComputerNameEx(ComputerNameFormat.PhysicalDnsHostname, name);
  }

  async setHostname(hostname: string): Promise<boolean> {
    this.setComputerName(hostname);
    return true;
  }

  userExists(name: string): boolean {
    return this.win32().netapi32.userGetInfo(name) !== undefined;
  }
  createUser(name: string, password: string, opts: { comment?: string; passwordNeverExpires?: boolean } = {}): void {
    this.log.info(`Creating user ${name}`);
    this.win32().netapi32.userAdd({ name, password, ...opts });
  }
  setUserPassword(name: string, password: string): void {
    this.log.info(`Setting the password of user ${name}`);
    this.win32().netapi32.userSetPassword(name, password);
  }
  expireUserPassword(name: string): void {
    // As cloudbase-init's change_password_next_logon: "password never expires" (which CreateUser sets)
    // outweighs an expired password at logon, so it is cleared in the same write.
    this.log.info(`Expiring the password of user ${name} (changed at the next logon)`);
    this.win32().netapi32.userExpirePassword(name);
  }
  ensureGroup(name: string): void {
    if (this.win32().netapi32.localGroupAdd(name)) this.log.info(`Created local group ${name}`);
  }
  addUserToGroup(user: string, group: string): void {
    if (this.win32().netapi32.localGroupAddMember(group, user))
      this.log.info(`Added user ${user} to local group ${group}`);
    else this.log.debug(`User ${user} already is a member of ${group}`);
  }
  groupMembers(group: string): string[] {
    return this.win32().netapi32.localGroupMembers(group);
  }
  checkPassword(user: string, password: string): boolean {
    return this.win32().advapi32.logonUser(user, password);
  }

  timeZone(): string {
    return this.win32().kernel32.getTimeZoneKeyName();
  }
  setTimeZone(keyName: string): void {
    const key = `${TIME_ZONES_KEY}\\${keyName}`;
    const tzi = this.regGet('HKLM', key, 'TZI');
    const std = this.regGet('HKLM', key, 'Std');
    const dlt = this.regGet('HKLM', key, 'Dlt');
    if (tzi?.type !== 'REG_BINARY' || tzi.data.length < 44) {
      throw new PlatformError(`unknown Windows time zone '${keyName}' (no TZI value under HKLM\\${key})`);
    }
    const b = Buffer.from(tzi.data);
    this.win32().advapi32.enablePrivilege('SeTimeZonePrivilege');
    this.log.info(`Setting the time zone to ${keyName}`);
    this.win32().kernel32.setDynamicTimeZone({
      keyName,
      standardName: std?.type === 'REG_SZ' ? std.data : keyName,
      daylightName: dlt?.type === 'REG_SZ' ? dlt.data : keyName,
      bias: b.readInt32LE(0),
      standardBias: b.readInt32LE(4),
      daylightBias: b.readInt32LE(8),
      standardDate: b.subarray(12, 28),
      daylightDate: b.subarray(28, 44),
    });
  }

  userProfilePath(user: string, create: boolean): string | undefined {
    const api = this.win32();
    const sid = api.advapi32.accountSid(user);
    if (!sid) return undefined;
    const registered = () => {
      const v = this.regGet(
        'HKLM',
        `SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\ProfileList\\${sid}`,
        'ProfileImagePath',
      );
      return v && (v.type === 'REG_SZ' || v.type === 'REG_EXPAND_SZ')
        ? v.data.replace(/%([^%]+)%/g, (m, name: string) => process.env[name] ?? m)
        : undefined;
    };
    const known = registered();
    if (known !== undefined || !create) return known;
    this.log.info(`Creating the profile of ${user}`);
    const made = api.userenv.createProfile(sid, user);
    if (made !== undefined) return made;
    // CreateProfile says the profile exists (made since we looked, or known to it but not yet registered): ask again.
    const existing = registered();
    if (existing === undefined)
      throw new PlatformError(
        `CreateProfile for '${user}': the profile already exists, but ProfileList has no ProfileImagePath for ${sid}`,
      );
    return existing;
  }

  loadUserProfile(user: string, password: string): void {
    const api = this.win32();
    const logon = api.advapi32.logonToken(user, password);
    if ('error' in logon) throw new PlatformError(`LogonUserW '${user}' failed: ${logon.error}`);
    try {
      this.log.info(`Loading the profile of ${user}`);
      api.userenv.loadUserProfile(logon.token, user);
    } finally {
      api.kernel32.closeHandle(Number(logon.token));
    }
  }
  createSelfSignedCertificate(subject: string, validDays: number): { thumbprint: string; container: string } {
    const container = `kiln-${subject.replace(/[^A-Za-z0-9-]/g, '_')}-${Date.now()}`;
    const thumbprint = this.win32().crypt32.createSelfSignedCertificate(subject, { store: 'MY', container, validDays });
    this.log.info(`Created a self-signed certificate for ${subject} in LocalMachine\\My: ${thumbprint}`);
    return { thumbprint, container };
  }
  importCertificate(der: Uint8Array, store: string): { thumbprint: string; upn: string } {
    const r = this.win32().crypt32.importCertificate(der, store);
    this.log.info(`Imported certificate ${r.thumbprint} into LocalMachine\\${store}`);
    return r;
  }
  importPfx(
    pfx: Uint8Array,
    password: string,
    store: string,
    machine: boolean,
  ): Array<{ thumbprint: string; store: string }> {
    const r = this.win32().crypt32.importPfx(pfx, password, store, machine);
    for (const c of r)
      this.log.info(
        `Imported certificate ${c.thumbprint} into ${machine ? 'LocalMachine' : 'CurrentUser'}\\${c.store}`,
      );
    return r;
  }
  createTransportCertificate(
    subject: string,
    store: string,
  ): { thumbprint: string; der: Uint8Array; container: string } {
    const crypt = this.win32().crypt32;
    const container = `kiln-transport-${randomUUID()}`;
    const thumbprint = crypt.createSelfSignedCertificate(subject, { store, container, validDays: 365 });
    const der = crypt.certificateDer(thumbprint, store);
    if (!der) throw new PlatformError(`the certificate ${thumbprint} just made is not in LocalMachine\\${store}`);
    this.log.debug(`Created the transport certificate ${thumbprint} in LocalMachine\\${store}`);
    return { thumbprint, der, container };
  }
  decryptEnvelopedMessage(cms: Uint8Array, container: string): Uint8Array {
    return this.win32().crypt32.decryptEnvelopedMessage(cms, container);
  }
  deleteCertificate(thumbprint: string, store: string, container?: string): boolean {
    this.log.debug(`Deleting the certificate ${thumbprint} from LocalMachine\\${store}`);
    return this.win32().crypt32.deleteCertificate(thumbprint, store, container);
  }
  certificateThumbprints(store: string): string[] {
    return this.win32().crypt32.storeThumbprints(store);
  }
  volumes(): Array<{ root: string; label: string }> {
    const disk = this.win32().disk;
    return disk.logicalDrives().flatMap((root) => {
      const info = disk.volumeInformation(root);
      return info ? [{ root, label: info.label }] : [];
    });
  }
  serviceState(name: string): number | undefined {
    return this.win32().advapi32.queryService(name)?.currentState;
  }
  createService(spec: ServiceSpec): void {
    this.log.info(`Creating service ${spec.name}: ${spec.binaryPath} (start ${spec.startType})`);
    this.win32().advapi32.createService(spec);
  }
  deleteService(name: string): boolean {
    this.log.info(`Deleting service ${name}`);
    return this.win32().advapi32.deleteService(name);
  }
  async stopService(name: string, timeoutMs = 60_000): Promise<void> {
    const api = this.win32().advapi32;
    const SERVICE_STOPPED = 1;
    const SERVICE_STOP_PENDING = 3;
    const state = api.queryService(name)?.currentState;
    if (state === undefined || state === SERVICE_STOPPED) return;
    this.log.info(`Stopping service ${name}`);
    if (state !== SERVICE_STOP_PENDING) api.stopService(name);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = api.queryService(name)?.currentState;
      if (now === undefined || now === SERVICE_STOPPED) return;
      if (Date.now() >= deadline)
        throw new PlatformError(`service ${name} did not stop within ${Math.round(timeoutMs / 1000)} s (state ${now})`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  startService(name: string): void {
    this.log.info(`Starting service ${name}`);
    this.win32().advapi32.startService(name);
  }
  setServiceStartType(name: string, startType: keyof typeof ServiceStartType): void {
    this.win32().advapi32.setServiceStartType(name, startType);
  }
  fileVersion(path: string): [number, number, number, number] {
    return this.win32().version.fileVersion(path);
  }

  netAdapters(): NetAdapter[] {
    return this.win32().iphlpapi.adapters();
  }
  routes(family: IpFamily): IpRoute[] {
    return this.win32().iphlpapi.routes(family);
  }
  addIpAddress(adapter: AdapterRef, address: string, prefixLength: number, family: IpFamily): boolean {
    const r = this.win32().iphlpapi.addUnicastAddress(adapter, address, prefixLength, family);
    this.log.info(
      `${r === 'added' ? 'Added' : 'Already had'} ${address}/${prefixLength} on interface ${adapter.ifIndex}`,
    );
    return r === 'added';
  }
  addRoute(
    adapter: AdapterRef,
    route: { destination: string; prefixLength: number; nextHop: string; family: IpFamily; metric?: number },
  ): boolean {
    const r = this.win32().iphlpapi.addRoute(adapter, route);
    this.log.info(
      `${r === 'added' ? 'Added' : 'Already had'} route ${route.destination}/${route.prefixLength} via ${route.nextHop} on interface ${adapter.ifIndex}`,
    );
    return r === 'added';
  }
  setInterfaceMtu(adapter: AdapterRef, family: IpFamily, mtu: number): void {
    this.log.info(`Setting the ${family} MTU of interface ${adapter.ifIndex} to ${mtu}`);
    this.win32().iphlpapi.setMtu(adapter, family, mtu);
  }
  dhcpOption(adapterGuid: string, option: number): Uint8Array | undefined {
    return this.win32().dhcpcsvc.requestOption(adapterGuid, option);
  }
  fixedVolumes(): Array<{ root: string; device: string | undefined }> {
    const { disk, volumes } = this.win32();
    return disk
      .logicalDrives()
      .filter((root) => disk.driveType(root) === 3)
      .map((root) => ({ root, device: volumes.ntDevice(root) }));
  }
  volumeDiskNumber(root: string): number | undefined {
    const extents = this.win32().volumes.volumeExtents(root);
    return extents.length === 1 ? extents[0]?.diskNumber : undefined;
  }
  setUniqueDiskId(diskNumber: number): string {
    const mbr = randomBytes(4).readUInt32LE(0) || 1;
    const uuid = randomUUID();
    const hex = Buffer.from(uuid.replace(/-/g, ''), 'hex');
    // GUID memory layout: Data1, Data2, Data3 little-endian, Data4 as is.
    const gpt = Buffer.concat([
      Buffer.from(hex.subarray(0, 4)).reverse(),
      Buffer.from(hex.subarray(4, 6)).reverse(),
      Buffer.from(hex.subarray(6, 8)).reverse(),
      hex.subarray(8),
    ]);
    const style = this.win32().volumes.setDiskId(diskNumber, { mbr, gpt });
    const id = style === 'mbr' ? mbr.toString(16).padStart(8, '0') : `{${uuid}}`;
    this.log.info(`Disk ${diskNumber} has the new ${style.toUpperCase()} id ${id}`);
    return id;
  }
  extendVolume(root: string): { bytes: number; reason?: string } {
    const api = this.win32().volumes;
    const extents = api.volumeExtents(root);
    const layout = extents[0]
      ? api.diskLayout(extents[0].diskNumber)
      : { style: 'raw' as const, partitions: [], usableEnd: 0 };
    const plan = planVolumeGrowth(extents, layout);
    if (!plan.grow) return { bytes: 0, reason: plan.reason };
    // A plan to grow means the volume has one extent.
    const disk = (extents[0] as VolumeExtent).diskNumber;
    this.log.info(`Growing partition ${plan.partition.number} of disk ${disk} (${root}) by ${plan.bytes} bytes`);
    api.growPartition(disk, plan.partition.number, plan.bytes);
    api.extendFileSystem(root, Math.floor(plan.newLength / api.bytesPerSector(root)));
    return { bytes: plan.bytes };
  }

  reboot(message: string, timeoutSeconds = 0): void {
    const api = this.win32().advapi32;
    api.enablePrivilege('SeShutdownPrivilege');
    this.log.info(`Rebooting: ${message}`);
    api.initiateSystemShutdown({ message, timeoutSeconds, reboot: true, force: true });
  }

  uname(): Uname {
    return hostUname();
  }

  runningUser(): string {
    return hostUser();
  }

  async osVersion(): Promise<OsVersion> {
    const v = this.win32().ntdll.rtlGetVersion();
    const version = `${v.major}.${v.minor}.${v.build}`;
    const kind = v.productType === 1 ? 'workstation' : v.productType === 2 ? 'domain controller' : 'server';
    return {
      id: 'windows',
      pretty: `Windows ${version} (${kind}${v.servicePack ? `, ${v.servicePack}` : ''})`,
      version,
      source: 'ntdll!RtlGetVersion',
    };
  }

  hostPath(path: string): string {
    if (/^[a-zA-Z]:[\\/]/.test(path)) return win32.normalize(path);
    return win32.join(this.root, path.replace(/\//g, '\\'));
  }

  hostReports(): HostReports {
    return new HostReportFiles(async (path) => this.hostPath(path));
  }

  readFile(path: string): Promise<Uint8Array> {
    return fsp.readFile(this.hostPath(path));
  }
  readText(path: string): Promise<string> {
    return fsp.readFile(this.hostPath(path), 'utf8');
  }
  readTextIfExists(path: string): Promise<string | undefined> {
    return undefinedIfMissing(() => this.readText(path));
  }
  async exists(path: string): Promise<boolean> {
    try {
      await fsp.stat(this.hostPath(path));
      return true;
    } catch {
      return false; // whatever stat's code, the path cannot be used: not there
    }
  }
  async stat(path: string, opts?: { followLinks?: boolean }): Promise<FileStat | undefined> {
    let st: Stats;
    try {
      st = opts?.followLinks === false ? await fsp.lstat(this.hostPath(path)) : await fsp.stat(this.hostPath(path));
    } catch {
      return undefined; // whatever stat's code, the path cannot be used: not there (as exists() says)
    }
    const type = st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other';
    return { type, mode: st.mode & 0o7777, size: st.size, mtimeMs: st.mtimeMs };
  }
  async listDir(path: string): Promise<string[]> {
    return (await fsp.readdir(this.hostPath(path))).sort();
  }
  async mkdir(path: string): Promise<void> {
    await fsp.mkdir(this.hostPath(path), { recursive: true });
  }
  async remove(path: string, opts?: { recursive?: boolean }): Promise<void> {
    await fsp.rm(this.hostPath(path), { force: true, recursive: opts?.recursive ?? false });
  }
  async symlink(target: string, path: string): Promise<void> {
    await fsp.symlink(target, this.hostPath(path), 'junction');
  }

  async writeFile(path: string, data: string | Uint8Array, opts: FileOpts = {}): Promise<void> {
    const host = this.hostPath(path);
    await fsp.mkdir(win32.dirname(host), { recursive: true });
    const content = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (opts.append) {
      try {
        await fsp.appendFile(host, content);
      } catch (err) {
        throw new PlatformError(`cannot append to ${path}: ${describeError(err)}`, { cause: err });
      }
      this.log.debug(`Appending to ${host}: ${content.length} bytes`);
      return;
    }
    const temp = `${host}.kiln-${randomBytes(6).toString('hex')}`;
    try {
      const handle = await fsp.open(temp, 'wx');
      await handle.writeFile(content);
      if (opts.durable) await handle.sync();
      await handle.close();
      await fsp.rename(temp, host);
    } catch (err) {
      await fsp.rm(temp, { force: true });
      throw new PlatformError(`cannot write ${path}: ${describeError(err)}`, { cause: err });
    }
    this.log.debug(`Writing to ${host}: ${content.length} bytes`);
  }

  async run(cmd: string[] | string, opts: RunOpts = {}): Promise<RunResult> {
    // A string is a cmd.exe command line, which may quote its own parts: `cmd.exe /s /c "LINE"` handed over as it is
    // (Python's shell=True and Node's shell option do the same). Node's quoting would escape LINE's quotes with
    // backslashes, which cmd.exe does not read, and would refuse a .cmd/.bat program in an argv outright (EINVAL).
    const argv = typeof cmd === 'string' ? ['cmd.exe', '/s', '/c', `"${cmd}"`] : cmd;
    const outcome = await execProcess({
      argv,
      ...(typeof cmd === 'string' || opts.verbatimArguments ? { verbatimArgs: true } : {}),
      ...(opts.input !== undefined ? { input: opts.input } : {}),
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.cwd !== undefined ? { cwd: this.hostPath(opts.cwd) } : {}),
      ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    });
    if ((outcome.code !== 0 || outcome.spawnError) && !opts.allowFailure) {
      throw new PlatformError(
        `command '${argv.join(' ')}' ${outcome.spawnError ? `could not start (${outcome.spawnError})` : `exited with code ${outcome.code}`}`,
      );
    }
    return { code: outcome.code, stdout: outcome.stdout, stderr: outcome.stderr };
  }
}
