// In-memory fakes of the Win32 bindings (the binding boundary): registry, accounts, computer name, shutdown.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PlatformError } from '../../../src/util/errors';
import { Logger } from '../../../src/util/log';
import type { Advapi32, ServiceSpec } from '../../../src/platform/windows/win32/advapi32';
import type {
  DiskLayout,
  DynamicTimeZone,
  Kernel32,
  Kernel32Disk,
  Kernel32Volumes,
} from '../../../src/platform/windows/win32/kernel32';
import type { Dhcpcsvc } from '../../../src/platform/windows/win32/dhcpcsvc';
import type { Iphlpapi, NetAdapter } from '../../../src/platform/windows/win32/iphlpapi';
import type { Crypt32 } from '../../../src/platform/windows/win32/crypt32';
import type { Userenv } from '../../../src/platform/windows/win32/userenv';
import { UF, type Netapi32 } from '../../../src/platform/windows/win32/netapi32';
import type { Ntdll } from '../../../src/platform/windows/win32/ntdll';
import type { RegRoot, RegValue } from '../../../src/platform/windows/win32/registry-value';
import { WindowsPlatform, type Win32Bindings } from '../../../src/platform/windows/windows-platform';
import type { BuildFacts } from '../../../src/build-info';

/**
 * A real PKCS#12 read by the host's openssl: each certificate (DER, base64) and whether the key in the PFX is
 * its own (same localKeyID), as PFXImportCertStore tells them apart; undefined when openssl cannot read it.
 */
function realPfx(pfx: Uint8Array, password: string): Array<{ der: string; key: boolean }> | undefined {
  const r = spawnSync('openssl', ['pkcs12', '-nodes', '-passin', `pass:${password}`], {
    input: Buffer.from(pfx),
    encoding: 'utf8',
  });
  if (r.status !== 0) return undefined;
  const blocks = [
    ...r.stdout.matchAll(
      /Bag Attributes([\s\S]*?)-----BEGIN (CERTIFICATE|PRIVATE KEY)-----([\s\S]*?)-----END \2-----/g,
    ),
  ];
  const keyIds = new Set(
    blocks
      .filter((b) => b[2] === 'PRIVATE KEY')
      .map((b) => /localKeyID: ([0-9A-F ]+)/.exec(b[1] ?? '')?.[1]?.trim())
      .filter(Boolean),
  );
  return blocks
    .filter((b) => b[2] === 'CERTIFICATE')
    .map((b) => ({
      der: Buffer.from((b[3] ?? '').replace(/\s+/g, ''), 'base64').toString('base64'),
      key: keyIds.has(/localKeyID: ([0-9A-F ]+)/.exec(b[1] ?? '')?.[1]?.trim()),
    }));
}

export class FakeWindows {
  /** 'HKLM\\key' (lower case) → value name (lower case) → value. */
  readonly registry = new Map<string, Map<string, { name: string; value: RegValue }>>();
  /** PASSWORD_EXPIRED: usri4_password_expired, set by userExpirePassword (NetUserSetInfo level 4). */
  readonly users = new Map<string, { password: string; comment: string; flags: number; passwordExpired?: boolean }>();
  readonly groups = new Map<string, string[]>([
    ['administrators', []],
    ['users', []],
  ]);
  computerName = 'WINE-HOST';
  timeZone = 'UTC';
  readonly shutdowns: Array<{ message: string; reboot: boolean }> = [];
  readonly privileges: string[] = [];
  readonly services = new Map<string, ServiceSpec>();
  readonly serviceExitCodes: number[] = [];
  readonly adapters: NetAdapter[] = [];
  /** Thumbprint → UPN that imported certificates report. */
  readonly certificateUpns = new Map<string, string>();
  /** Drive letters with a medium: root and volume label. */
  readonly drives: Array<{ root: string; label: string }> = [{ root: 'C:\\', label: '' }];
  readonly certificates: Array<{
    subject: string;
    store: string;
    thumbprint: string;
    pem?: string;
    keyPem?: string;
    container?: string;
  }> = [];
  /** Self-signed certificates get a real key and certificate from the host's openssl (for real CMS envelopes). */
  realCertificates = false;
  /** Service name (lower case) → SERVICE_* state, for services the tests pretend exist. */
  readonly serviceStates = new Map<string, number>();
  /** The routing table: routes a test seeds (a DHCP default route) and those CreateIpForwardEntry2 added. */
  readonly routes: Array<{
    ifIndex: number;
    destination: string;
    prefixLength: number;
    nextHop: string;
    metric?: number;
    family?: 'ipv4' | 'ipv6';
  }> = [];
  /** Adapter GUID (lower case) → DHCP option code → the lease's data for it. */
  readonly dhcpLeases = new Map<string, Map<number, Uint8Array>>();
  /** Physical disk number → the id last set (MBR signature or GPT DiskId bytes, hex). */
  readonly diskIds = new Map<number, string>();
  /** Physical disk number → its layout (partitions change when grown). */
  readonly disks = new Map<number, DiskLayout>();
  /**
   * Fixed volumes by drive root: NT device, extents, sector size, and the file system's size in sectors once extended.
   */
  readonly fixedVolumes: Array<{
    root: string;
    device: string;
    diskNumber: number;
    start: number;
    bytesPerSector: number;
    fsSectors?: number;
  }> = [];
  /** Path (lower case) → the file version version.dll reports. */
  readonly fileVersions = new Map<string, [number, number, number, number]>();
  /** Calls in order, for assertions on which API was used. */
  readonly calls: string[] = [];

  private keyOf(root: RegRoot, key: string): string {
    return `${root}\\${key}`.toLowerCase();
  }

  setValue(root: RegRoot, key: string, name: string, value: RegValue): void {
    const parts = key.split('\\');
    for (let i = 1; i <= parts.length; i++) {
      const k = this.keyOf(root, parts.slice(0, i).join('\\'));
      if (!this.registry.has(k)) this.registry.set(k, new Map());
    }
    this.registry.get(this.keyOf(root, key))?.set(name.toLowerCase(), { name, value });
  }
  getValue(root: RegRoot, key: string, name: string): RegValue | undefined {
    return this.registry.get(this.keyOf(root, key))?.get(name.toLowerCase())?.value;
  }

  kernel32(): Kernel32 {
    return {
      lastErrorText: (code?: number) => `fake error (error ${code ?? 0})`,
      getComputerNameEx: () => this.computerName,
      lastError: () => 0,
      setComputerNameEx: (_format: number, name: string) => {
        this.calls.push(`SetComputerNameExW ${name}`);
        if (name.length > 63 || /[\s"/\\[\]:|<>+=;,?*]/.test(name))
          throw new PlatformError(`SetComputerNameExW '${name}' failed: invalid name`);
        this.setValue('HKLM', 'SYSTEM\\CurrentControlSet\\Control\\ComputerName\\ComputerName', 'ComputerName', {
          type: 'REG_SZ',
          data: name.toUpperCase().slice(0, 15),
        });
      },
      closeHandle: () => undefined,
      getTimeZoneKeyName: () => this.timeZone,
      setDynamicTimeZone: (tz: DynamicTimeZone) => {
        this.calls.push(`SetDynamicTimeZoneInformation ${tz.keyName}`);
        this.timeZone = tz.keyName;
      },
      getCurrentProcessId: () => 4242,
    };
  }

  ntdll(): Ntdll {
    return {
      rtlGetVersion: () => ({ major: 10, minor: 0, build: 20348, platformId: 2, servicePack: '', productType: 3 }),
    };
  }

  advapi32(): Advapi32 {
    return {
      regGetValue: (root, key, name) => this.getValue(root, key, name),
      regSetValue: (root, key, name, value) => {
        this.calls.push(`RegSetValueExW ${root}\\${key}\\${name}`);
        this.setValue(root, key, name, value);
      },
      regListValues: (root, key) => {
        const k = this.registry.get(this.keyOf(root, key));
        return k ? [...k.values()].map((v) => ({ name: v.name, value: v.value })) : undefined;
      },
      regListKeys: (root, key) => {
        const prefix = `${this.keyOf(root, key)}\\`;
        if (!this.registry.has(this.keyOf(root, key))) return undefined;
        return [...this.registry.keys()]
          .filter((k) => k.startsWith(prefix) && !k.slice(prefix.length).includes('\\'))
          .map((k) => k.slice(prefix.length));
      },
      regDeleteValue: (root, key, name) => {
        this.registry.get(this.keyOf(root, key))?.delete(name.toLowerCase());
      },
      regDeleteTree: (root, key) => {
        const k = this.keyOf(root, key);
        for (const existing of [...this.registry.keys()])
          if (existing === k || existing.startsWith(`${k}\\`)) this.registry.delete(existing);
      },
      enablePrivilege: (name) => {
        this.privileges.push(name);
      },
      initiateSystemShutdown: ({ message, reboot }) => {
        this.calls.push('InitiateSystemShutdownExW');
        this.shutdowns.push({ message, reboot });
      },
      logonUser: (user, password) => this.users.get(user.toLowerCase())?.password === password,
      logonToken: (user, password) => {
        this.calls.push(`LogonUserW ${user}`);
        return this.users.get(user.toLowerCase())?.password === password
          ? { token: 77 }
          : { error: 'The user name or password is incorrect. (error 1326)' };
      },
      createService: (spec) => {
        if (this.services.has(spec.name.toLowerCase()))
          throw new PlatformError(
            `CreateServiceW '${spec.name}' failed: The specified service already exists. (error 1073)`,
          );
        this.services.set(spec.name.toLowerCase(), spec);
      },
      deleteService: (name) => {
        this.calls.push(`DeleteService ${name}`);
        this.serviceStates.delete(name.toLowerCase());
        return this.services.delete(name.toLowerCase());
      },
      queryService: (name) => {
        const state =
          this.serviceStates.get(name.toLowerCase()) ?? (this.services.has(name.toLowerCase()) ? 1 : undefined);
        return state === undefined ? undefined : { currentState: state, exitCode: 0 };
      },
      stopService: (name) => {
        this.calls.push(`ControlService stop ${name}`);
        if (this.serviceStates.has(name.toLowerCase())) this.serviceStates.set(name.toLowerCase(), 1);
      },
      startService: (name) => {
        if (!this.services.has(name.toLowerCase()) && !this.serviceStates.has(name.toLowerCase()))
          throw new PlatformError(
            `OpenServiceW '${name}' failed: The specified service does not exist as an installed service. (error 1060)`,
          );
        this.calls.push(`StartServiceW ${name}`);
        this.serviceStates.set(name.toLowerCase(), 4);
      },
      setServiceStartType: (name, startType) => {
        const spec = this.services.get(name.toLowerCase());
        if (!spec)
          throw new PlatformError(
            `OpenServiceW '${name}' failed: The specified service does not exist as an installed service. (error 1060)`,
          );
        this.services.set(name.toLowerCase(), { ...spec, startType });
      },
      accountSid: (name) =>
        this.users.has(name.toLowerCase())
          ? `S-1-5-21-1-2-3-${1000 + [...this.users.keys()].indexOf(name.toLowerCase())}`
          : undefined,
      runService: async (name, work) => {
        this.calls.push(`StartServiceCtrlDispatcherW ${name}`);
        this.serviceExitCodes.push(await work());
      },
    };
  }

  netapi32(): Netapi32 {
    return {
      userGetInfo: (name) => {
        const u = this.users.get(name.toLowerCase());
        return u ? { name, comment: u.comment, disabled: (u.flags & 2) !== 0 } : undefined;
      },
      userAdd: ({ name, password, comment, passwordNeverExpires }) => {
        this.calls.push(`NetUserAdd ${name}`);
        if (this.users.has(name.toLowerCase()))
          throw new PlatformError(`NetUserAdd '${name}' failed: The account already exists (error 2224)`);
        this.users.set(name.toLowerCase(), {
          password,
          comment: comment ?? '',
          flags: UF.SCRIPT | UF.NORMAL_ACCOUNT | (passwordNeverExpires ? UF.DONT_EXPIRE_PASSWD : 0),
        });
      },
      userSetPassword: (name, password) => {
        this.calls.push(`NetUserSetInfo(1003) ${name}`);
        const u = this.users.get(name.toLowerCase());
        if (!u)
          throw new PlatformError(
            `NetUserSetInfo(1003) '${name}' failed: The user name could not be found (error 2221)`,
          );
        u.password = password;
      },
      userFlags: (name) => {
        const u = this.users.get(name.toLowerCase());
        if (!u)
          throw new PlatformError(`NetUserGetInfo '${name}' failed: The user name could not be found (error 2221)`);
        return u.flags;
      },
      userSetFlags: (name, flags) => {
        this.calls.push(`NetUserSetInfo(1008) ${name}`);
        const u = this.users.get(name.toLowerCase());
        if (!u)
          throw new PlatformError(
            `NetUserSetInfo(1008) '${name}' failed: The user name could not be found (error 2221)`,
          );
        u.flags = flags;
      },
      userExpirePassword: (name) => {
        this.calls.push(`NetUserSetInfo(4) ${name}`);
        const u = this.users.get(name.toLowerCase());
        if (!u)
          throw new PlatformError(`NetUserGetInfo(4) '${name}' failed: The user name could not be found (error 2221)`);
        u.flags &= ~UF.DONT_EXPIRE_PASSWD;
        u.passwordExpired = true;
      },
      userEnable: () => undefined,
      userDelete: (name) => this.users.delete(name.toLowerCase()),
      userEnum: () => [...this.users.keys()],
      localGroupAdd: (name) => {
        if (this.groups.has(name.toLowerCase())) return false;
        this.calls.push(`NetLocalGroupAdd ${name}`);
        this.groups.set(name.toLowerCase(), []);
        return true;
      },
      localGroupAddMember: (group, member) => {
        const g = this.groups.get(group.toLowerCase());
        if (!g)
          throw new PlatformError(
            `NetLocalGroupAddMembers '${member}' to '${group}' failed: The specified local group does not exist (error 1376)`,
          );
        if (g.includes(member)) return false;
        this.calls.push(`NetLocalGroupAddMembers ${group} ${member}`);
        g.push(member);
        return true;
      },
      localGroupMembers: (group) => this.groups.get(group.toLowerCase()) ?? [],
    };
  }

  iphlpapi(): Iphlpapi {
    const find = (ifIndex: number) => {
      const a = this.adapters.find((x) => x.ifIndex === ifIndex);
      if (!a) throw new PlatformError(`no interface ${ifIndex}`);
      return a;
    };
    return {
      adapters: () => this.adapters.map((a) => ({ ...a, unicast: [...a.unicast], dnsServers: [...a.dnsServers] })),
      routes: (family) => {
        this.calls.push(`GetIpForwardTable2 ${family}`);
        return this.routes
          .map((r) => ({
            ...r,
            family: r.family ?? (r.destination.includes(':') ? ('ipv6' as const) : ('ipv4' as const)),
            metric: r.metric ?? 0,
          }))
          .filter((r) => r.family === family);
      },
      addUnicastAddress: (ref, address, prefixLength, family) => {
        const a = find(ref.ifIndex);
        this.calls.push(`CreateUnicastIpAddressEntry ${ref.ifIndex} ${address}/${prefixLength}`);
        if (a.unicast.some((u) => u.address === address)) return 'exists';
        a.unicast.push({ address, prefixLength, family });
        return 'added';
      },
      addRoute: (ref, route) => {
        find(ref.ifIndex);
        this.calls.push(
          `CreateIpForwardEntry2 ${ref.ifIndex} ${route.destination}/${route.prefixLength} via ${route.nextHop}`,
        );
        if (
          this.routes.some(
            (r) =>
              r.ifIndex === ref.ifIndex && r.destination === route.destination && r.prefixLength === route.prefixLength,
          )
        )
          return 'exists';
        this.routes.push({ ifIndex: ref.ifIndex, ...route });
        return 'added';
      },
      setMtu: (ref, family, mtu) => {
        this.calls.push(`SetIpInterfaceEntry ${ref.ifIndex} ${family} mtu ${mtu}`);
        find(ref.ifIndex).mtu = mtu;
      },
    };
  }

  userenv(): Userenv {
    return {
      profilesDirectory: () => 'C:\\Users',
      loadUserProfile: (token, user) => {
        this.calls.push(`LoadUserProfileW ${user} token ${token}`);
        const sid = `S-1-5-21-1-2-3-${1000 + [...this.users.keys()].indexOf(user.toLowerCase())}`;
        this.setValue(
          'HKLM',
          `SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\ProfileList\\${sid}`,
          'ProfileImagePath',
          { type: 'REG_EXPAND_SZ', data: `C:\\Users\\${user}` },
        );
      },
      createProfile: (sid, user) => {
        this.calls.push(`CreateProfile ${user}`);
        const path = `C:\\Users\\${user}`;
        this.setValue(
          'HKLM',
          `SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\ProfileList\\${sid}`,
          'ProfileImagePath',
          { type: 'REG_EXPAND_SZ', data: path },
        );
        return path;
      },
    };
  }

  crypt32(): Crypt32 {
    return {
      importCertificate: (der, store) => {
        const thumbprint = createHash('sha1').update(der).digest('hex').toUpperCase();
        this.certificates.push({ subject: 'imported', store, thumbprint });
        this.calls.push(`CertAddCertificateContextToStore ${store}`);
        return { thumbprint, upn: this.certificateUpns.get(thumbprint) ?? '' };
      },
      // The fake's PFX: JSON { password, certs: [{ der (base64), key }] }, so tests can say which certificate has a
      // key.
      importPfx: (pfx, password, store, machine) => {
        this.calls.push(`PFXImportCertStore ${machine ? 'machine' : 'user'}`);
        let parsed: { password: string; certs: Array<{ der: string; key: boolean }> };
        try {
          parsed = JSON.parse(Buffer.from(pfx).toString('utf8')) as typeof parsed;
        } catch {
          const real = this.realCertificates ? realPfx(pfx, password) : undefined;
          if (!real)
            throw new PlatformError(
              'PFXImportCertStore (not a PFX, or a wrong password?) failed: ASN1 bad tag value met. (error 0x8009310b)',
            );
          parsed = { password, certs: real };
        }
        if (parsed.password !== password)
          throw new PlatformError(
            'PFXImportCertStore (not a PFX, or a wrong password?) failed: The specified network password is not correct. (error 86)',
          );
        return parsed.certs.map((c) => {
          const thumbprint = createHash('sha1').update(Buffer.from(c.der, 'base64')).digest('hex').toUpperCase();
          const target = c.key ? store : 'CA';
          this.certificates.push({ subject: 'pfx', store: target, thumbprint });
          return { thumbprint, store: target };
        });
      },
      storeThumbprints: (store) =>
        this.certificates
          .filter((c) => c.store.toLowerCase() === store.toLowerCase())
          .map((c) => c.thumbprint)
          .reverse(),
      certificateDer: (thumbprint, store) => {
        const c = this.certificates.find(
          (x) => x.thumbprint === thumbprint && x.store.toLowerCase() === store.toLowerCase(),
        );
        if (!c) return undefined;
        return c.pem
          ? new Uint8Array(Buffer.from(c.pem.replace(/-----[^-]+-----|\s+/g, ''), 'base64'))
          : Buffer.from(c.thumbprint, 'hex');
      },
      // With realCertificates, a real key and certificate from the host's openssl decrypt a real CMS envelope.
      decryptEnvelopedMessage: (cms, container) => {
        this.calls.push(`CMSG_CTRL_DECRYPT ${container}`);
        for (const c of this.certificates.filter((x) => x.container === container && x.keyPem && x.pem)) {
          const dir = mkdtempSync(join(tmpdir(), 'kiln-fake-crypt32-'));
          try {
            writeFileSync(join(dir, 'key.pem'), c.keyPem as string);
            writeFileSync(join(dir, 'cert.pem'), c.pem as string);
            const r = spawnSync(
              'openssl',
              ['cms', '-decrypt', '-inform', 'DER', '-inkey', join(dir, 'key.pem'), '-recip', join(dir, 'cert.pem')],
              { input: Buffer.from(cms) },
            );
            if (r.status === 0) return new Uint8Array(r.stdout);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }
        throw new PlatformError(
          'CryptMsgControl CMSG_CTRL_DECRYPT (not an envelope for this key?) failed: Bad Data. (error 0x80090005)',
        );
      },
      deleteCertificate: (thumbprint, store) => {
        const i = this.certificates.findIndex(
          (x) => x.thumbprint === thumbprint && x.store.toLowerCase() === store.toLowerCase(),
        );
        if (i < 0) return false;
        this.certificates.splice(i, 1);
        this.calls.push(`CertDeleteCertificateFromStore ${store}`);
        return true;
      },
      createSelfSignedCertificate: (subject, { store, container }) => {
        if (this.realCertificates) {
          const dir = mkdtempSync(join(tmpdir(), 'kiln-fake-crypt32-'));
          try {
            const r = spawnSync('openssl', [
              'req',
              '-x509',
              '-nodes',
              '-subj',
              `/${subject.replace(/^CN=/, 'CN=')}`,
              '-days',
              '2',
              '-newkey',
              'rsa:2048',
              '-keyout',
              join(dir, 'key.pem'),
              '-out',
              join(dir, 'cert.pem'),
            ]);
            if (r.status !== 0)
              throw new PlatformError(`fake CertCreateSelfSignCertificate: openssl req failed: ${r.stderr.toString()}`);
            const pem = readFileSync(join(dir, 'cert.pem'), 'utf8');
            const der = Buffer.from(pem.replace(/-----[^-]+-----|\s+/g, ''), 'base64');
            const thumbprint = createHash('sha1').update(der).digest('hex').toUpperCase();
            this.certificates.push({
              subject,
              store,
              thumbprint,
              pem,
              keyPem: readFileSync(join(dir, 'key.pem'), 'utf8'),
              container,
            });
            this.calls.push(`CertCreateSelfSignCertificate ${subject}`);
            return thumbprint;
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }
        const thumbprint = (this.certificates.length + 1).toString(16).toUpperCase().padStart(40, 'A');
        this.certificates.push({ subject, store, thumbprint });
        this.calls.push(`CertCreateSelfSignCertificate ${subject}`);
        return thumbprint;
      },
    };
  }

  disk(): Kernel32Disk {
    return {
      logicalDrives: () =>
        [...new Set([...this.drives.map((d) => d.root), ...this.fixedVolumes.map((v) => v.root)])].sort(),
      driveType: () => 3,
      volumeInformation: (root) => {
        const d = this.drives.find((x) => x.root === root);
        return d ? { label: d.label, serial: 0x1234abcd, fsName: 'NTFS' } : undefined;
      },
      openDevice: () => ({ error: 2 }),
      deviceLength: () => undefined,
      readAt: () => 0,
      closeHandle: () => undefined,
      lastErrorText: (code?: number) => `fake error (error ${code ?? 0})`,
    };
  }

  dhcpcsvc(): Dhcpcsvc {
    return {
      requestOption: (guid, option) => {
        this.calls.push(`DhcpRequestParams ${guid} ${option}`);
        return this.dhcpLeases.get(guid.toLowerCase())?.get(option);
      },
    };
  }

  volumes(): Kernel32Volumes {
    const volume = (root: string) => {
      const v = this.fixedVolumes.find((x) => x.root === root);
      if (!v)
        throw new PlatformError(
          `CreateFileW \\\\.\\${root} failed: The system cannot find the file specified. (error 2)`,
        );
      return v;
    };
    const disk = (n: number) => {
      const d = this.disks.get(n);
      if (!d)
        throw new PlatformError(
          `CreateFileW \\\\.\\PhysicalDrive${n} failed: The system cannot find the file specified. (error 2)`,
        );
      return d;
    };
    return {
      volumeExtents: (root) => {
        const v = volume(root);
        const p = disk(v.diskNumber).partitions.find((x) => x.start === v.start);
        return p ? [{ diskNumber: v.diskNumber, start: v.start, length: p.length }] : [];
      },
      diskLayout: (n) => {
        const d = disk(n);
        return { ...d, partitions: d.partitions.map((p) => ({ ...p })) };
      },
      growPartition: (n, number, bytes) => {
        this.calls.push(`IOCTL_DISK_GROW_PARTITION ${n} ${number} ${bytes}`);
        const d = disk(n);
        const p = d.partitions.find((x) => x.number === number);
        if (!p)
          throw new PlatformError(
            `IOCTL_DISK_GROW_PARTITION partition ${number}: The parameter is incorrect. (error 87)`,
          );
        const end = p.start + p.length + bytes;
        // As Windows: growing over another partition or past the usable end is refused.
        if (end > d.usableEnd || d.partitions.some((o) => o !== p && o.start >= p.start + p.length && o.start < end)) {
          throw new PlatformError(
            `IOCTL_DISK_GROW_PARTITION partition ${number} by ${bytes}: The parameter is incorrect. (error 87)`,
          );
        }
        p.length += bytes;
      },
      extendFileSystem: (root, sectors) => {
        this.calls.push(`FSCTL_EXTEND_VOLUME ${root} ${sectors}`);
        const v = volume(root);
        const p = disk(v.diskNumber).partitions.find((x) => x.start === v.start);
        if (!p || sectors * v.bytesPerSector > p.length)
          throw new PlatformError(`FSCTL_EXTEND_VOLUME ${root}: The parameter is incorrect. (error 87)`);
        v.fsSectors = sectors;
      },
      bytesPerSector: (root) => volume(root).bytesPerSector,
      setDiskId: (n, id) => {
        const d = disk(n);
        if (d.style === 'raw')
          throw new PlatformError(`\\\\.\\PhysicalDrive${n} is neither MBR nor GPT: no disk id to set`);
        this.calls.push(`IOCTL_DISK_SET_DRIVE_LAYOUT_EX ${n}`);
        this.diskIds.set(n, d.style === 'mbr' ? id.mbr.toString(16) : Buffer.from(id.gpt).toString('hex'));
        return d.style;
      },
      ntDevice: (root) => this.fixedVolumes.find((x) => x.root === root)?.device,
    };
  }

  bindings(): Win32Bindings {
    return {
      kernel32: this.kernel32(),
      ntdll: this.ntdll(),
      advapi32: this.advapi32(),
      netapi32: this.netapi32(),
      iphlpapi: this.iphlpapi(),
      userenv: this.userenv(),
      crypt32: this.crypt32(),
      disk: this.disk(),
      volumes: this.volumes(),
      dhcpcsvc: this.dhcpcsvc(),
      version: {
        fileVersion: (path) => {
          const v = this.fileVersions.get(path.toLowerCase());
          if (!v)
            throw new PlatformError(
              `GetFileVersionInfoSizeW '${path}' failed: The system cannot find the file specified. (error 2)`,
            );
          return v;
        },
      },
    };
  }

  /** A WindowsPlatform whose Win32 layer is this fake. */
  platform(logger = new Logger()): WindowsPlatform {
    const facts = { version: 'test', target: { name: 'win-x64' }, defaultConfigs: {} } as unknown as BuildFacts;
    return new WindowsPlatform({
      root: 'C:\\',
      log: logger.for('windows-platform.ts'),
      facts,
      bindings: this.bindings(),
    });
  }
}
