// useradd, groupadd, usermod -aG, passwd -l/--expire and chpasswd -e done by kiln itself on the account files,
// with the ids, fields, backups, locks, home directories and subordinate ids shadow-utils would produce.
// Each operation checks first that it is one kiln reproduces exactly; anything else (an invalid name, a
// missing group, NIS entries, an option kiln does not model) returns false and the caller runs the tool,
// which then behaves, and fails, as it always did.
import { closeSync, fsyncSync, lstatSync, openSync, readlinkSync, statSync, utimesSync, writeSync } from 'node:fs';
import { posix } from 'node:path';
import type { UserSpec } from '../distro/distro';
import { defBool, defNumber, readAccountDefaults, type AccountDefaults } from './account-defaults';
import type { AccountHost } from './account-host';
import type { AccountFileName } from './account-file-names';
import { AccountTransaction } from './account-transaction';
import { ColonFile } from './colon-file';
import { freeSubordinateRange, idRange, newId } from './id-allocation';
import { PlatformError } from '../../../util/errors';

/** Names useradd and groupadd accept everywhere (stricter than Debian's, so a name kiln takes is valid for all). */
const PORTABLE_NAME = /^[a-z_][a-z0-9_-]{0,30}\$?$/;
/** sizeof(struct lastlog) and sizeof(struct faillog) with 64-bit glibc. */
const LASTLOG_RECORD = 292;
const FAILLOG_RECORD = 32;

/** Days since the epoch, as shadow stores password ages (0 would force a change, so it becomes empty). */
function today(): string {
  const days = Math.floor(Date.now() / 86_400_000);
  return days === 0 ? '' : String(days);
}

/** A login.defs age as a shadow field: -1 (or absent) is empty. */
function ageField(defs: AccountDefaults, key: string): string {
  const n = defNumber(defs, key, -1);
  return n < 0 ? '' : String(n);
}

/** useradd's --expiredate / EXPIRE value as days since the epoch; '' for never; undefined when kiln cannot read it. */
function expiryDays(value: string): string | undefined {
  if (value === '' || value === '-1') return '';
  if (/^\d+$/.test(value)) return value;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return Number.isNaN(ms) ? undefined : String(Math.floor(ms / 86_400_000));
}

const ids = (file: ColonFile | undefined, field: number) =>
  (file?.entries() ?? []).map((f) => Number(f[field])).filter(Number.isInteger);

export class NativeAccounts {
  constructor(
    private readonly platform: AccountHost,
    private readonly family: string,
  ) {}

  /**
   * True when the target's setup is one whose tools kiln stands in for: no SELinux, nscd, sssd, audit or
   * pam_tally2 to inform, no NIS entries, and libc's fcntl at hand to take /etc/.pwd.lock as the tools do.
   */
  static async suits(platform: AccountHost): Promise<boolean> {
    if (!platform.recordLocks()) return false;
    const selinux = await platform.readTextIfExists('/etc/selinux/config');
    if (selinux !== undefined && !/^\s*SELINUX\s*=\s*disabled\s*$/m.test(selinux)) return false;
    for (const tool of [
      '/usr/sbin/nscd',
      '/usr/sbin/sss_cache',
      '/sbin/auditd',
      '/usr/sbin/auditd',
      '/sbin/pam_tally2',
    ])
      if (await platform.exists(tool)) return false;
    return !new ColonFile((await platform.readTextIfExists('/etc/passwd')) ?? '').hasCompatEntries();
  }

  /** groupadd [--system] NAME. */
  async addGroup(name: string, system: boolean): Promise<boolean> {
    if (!PORTABLE_NAME.test(name)) return false;
    const defs = await readAccountDefaults(this.platform);
    const tx = await AccountTransaction.open(this.platform, ['group', 'gshadow']);
    const group = tx.read('group');
    const gid = group && !group.find(name) ? newId(ids(group, 2), idRange(defs, 'GID', system), system) : undefined;
    if (gid === undefined) {
      await tx.abandon();
      return false;
    }
    tx.change('group').append([name, 'x', String(gid), '']);
    if (tx.has('gshadow')) tx.change('gshadow').append([name, '!', '', '']);
    await tx.commit();
    return true;
  }

  /** useradd with cloud-init's options; the user must not exist yet. */
  async addUser(user: UserSpec): Promise<boolean> {
    if (!PORTABLE_NAME.test(user.name) || user.selinuxUser !== undefined || user.noUserGroup) return false;
    if (user.homedir !== undefined && !user.homedir.startsWith('/')) return false;
    if (user.inactive !== undefined && !/^-?\d+$/.test(user.inactive)) return false;
    const defs = await readAccountDefaults(this.platform);
    const mailSpool = defs.useradd.get('CREATE_MAIL_SPOOL') ?? (this.family === 'debian' ? 'no' : undefined);
    if (mailSpool?.toLowerCase() !== 'no') return false;
    const expire = expiryDays(user.expiredate ?? defs.useradd.get('EXPIRE') ?? '');
    if (expire === undefined) return false;
    if (!user.primaryGroup && !defBool(defs, 'USERGROUPS_ENAB', false)) return false;
    const system = user.system ?? false;
    const uidRange = idRange(defs, 'UID', false);
    const subIds = !system && (user.uid === undefined || (user.uid >= uidRange.min && user.uid <= uidRange.max));
    const subFiles: AccountFileName[] = subIds ? ['subuid', 'subgid'] : [];
    const tx = await AccountTransaction.open(this.platform, ['passwd', 'shadow', 'group', 'gshadow', ...subFiles]);
    const planned = this.planUser(tx, defs, user, system, expire);
    if (!planned) {
      await tx.abandon();
      return false;
    }
    await tx.commit();
    // A refused record (a hard-linked log under --root) is reported once the home is made: the account exists by then.
    let refused: PlatformError | undefined;
    if (!user.noLogInit) {
      try {
        await this.resetLogRecord(
          '/var/log/lastlog',
          planned.uid,
          LASTLOG_RECORD,
          defNumber(defs, 'LASTLOG_UID_MAX', 0xffffffff),
        );
        await this.resetLogRecord('/var/log/faillog', planned.uid, FAILLOG_RECORD, 0xffffffff);
      } catch (err) {
        if (!(err instanceof PlatformError)) throw err;
        refused = err;
      }
    }
    if (!user.noCreateHome && !system) await this.createHome(defs, planned.home, planned.uid, planned.gid);
    if (refused) throw refused;
    return true;
  }

  /** The entries useradd would add, made in TX; undefined when kiln leaves this user to useradd. */
  private planUser(
    tx: AccountTransaction,
    defs: AccountDefaults,
    user: UserSpec,
    system: boolean,
    expire: string,
  ): { uid: number; gid: number; home: string } | undefined {
    const passwd = tx.read('passwd');
    const shadow = tx.read('shadow');
    const group = tx.read('group');
    if (!passwd || !shadow || !group || passwd.find(user.name)) return undefined;
    const uidsInUse = ids(passwd, 2);
    const uid = user.uid ?? newId(uidsInUse, idRange(defs, 'UID', system), system);
    if (uid === undefined || (user.uid !== undefined && uidsInUse.includes(user.uid))) return undefined;
    let gid: number | undefined;
    if (user.primaryGroup !== undefined) {
      gid = /^\d+$/.test(user.primaryGroup)
        ? Number(user.primaryGroup)
        : Number(group.find(user.primaryGroup)?.[2] ?? NaN);
      if (!Number.isInteger(gid) || !group.entries().some((g) => Number(g[2]) === gid)) return undefined;
    } else {
      if (group.find(user.name)) return undefined;
      gid = newId(ids(group, 2), idRange(defs, 'GID', system), system, uid);
      if (gid === undefined) return undefined;
    }
    const supplementary = user.groups ?? [];
    if (supplementary.some((g) => !group.find(g))) return undefined;
    const shell = user.shell ?? defs.useradd.get('SHELL') ?? '/bin/bash';
    const home = user.homedir ?? posix.join(defs.useradd.get('HOME') ?? '/home', user.name);
    const subuid = tx.read('subuid');
    const subgid = tx.read('subgid');
    const subRanges = (file: ColonFile, kind: 'UID' | 'GID') => {
      file.sortEntries(
        (a, b) =>
          Number(a[1]) - Number(b[1]) ||
          Number(a[2]) - Number(b[2]) ||
          ((a[0] ?? '') < (b[0] ?? '') ? -1 : (a[0] ?? '') > (b[0] ?? '') ? 1 : 0),
      );
      const count = defNumber(defs, `SUB_${kind}_COUNT`, 65536);
      const start = freeSubordinateRange(
        file.entries().map((f) => ({ start: Number(f[1]), count: Number(f[2]) })),
        defNumber(defs, `SUB_${kind}_MIN`, 100000),
        defNumber(defs, `SUB_${kind}_MAX`, 600100000),
        count,
      );
      return start === undefined ? undefined : [user.name, String(start), String(count)];
    };
    const subuidLine =
      subuid && defNumber(defs, 'SUB_UID_COUNT', 65536) > 0 ? subRanges(tx.change('subuid'), 'UID') : undefined;
    const subgidLine =
      subgid && defNumber(defs, 'SUB_GID_COUNT', 65536) > 0 ? subRanges(tx.change('subgid'), 'GID') : undefined;
    if ((subuid && !subuidLine) || (subgid && !subgidLine)) return undefined;

    tx.change('passwd').append([user.name, 'x', String(uid), String(gid), user.gecos ?? '', home, shell]);
    const inactive = user.inactive ?? defs.useradd.get('INACTIVE') ?? '-1';
    // System accounts get no ageing, inactivity or expiry at all, whatever was asked.
    const ages = system
      ? ['', '', '', '', '']
      : [
          ageField(defs, 'PASS_MIN_DAYS'),
          ageField(defs, 'PASS_MAX_DAYS'),
          ageField(defs, 'PASS_WARN_AGE'),
          Number(inactive) < 0 ? '' : inactive,
          expire,
        ];
    tx.change('shadow').append([user.name, user.passwdHash ?? '!', today(), ...ages, '']);
    if (user.primaryGroup === undefined || supplementary.length > 0) {
      const groups = tx.change('group');
      const gshadow = tx.has('gshadow') ? tx.change('gshadow') : undefined;
      for (const name of supplementary) {
        groups.addMember(name, user.name);
        gshadow?.addMember(name, user.name);
      }
      if (user.primaryGroup === undefined) {
        groups.append([user.name, 'x', String(gid), '']);
        gshadow?.append([user.name, '!', '', '']);
      }
    }
    if (subuidLine) tx.change('subuid').append(subuidLine);
    if (subgidLine) tx.change('subgid').append(subgidLine);
    return { uid, gid, home };
  }

  /** Zeroes a stale lastlog/faillog record of UID where the file already reaches it (useradd's log init). */
  private async resetLogRecord(path: string, uid: number, size: number, maxUid: number): Promise<void> {
    if (uid > maxUid) return;
    const host = await this.platform.resolvedHostPath(path);
    const st = statSync(host, { throwIfNoEntry: false });
    // Only a file of the image's own: a hard link may share its record with a file outside a --root sandbox.
    if (!st?.isFile() || st.size <= uid * size) return;
    if (this.platform.root !== '/' && st.nlink > 1)
      throw new PlatformError(
        `${path} in ${this.platform.root} is a hard link (${st.nlink} names): kiln does not write records into it under --root, where it may be a file outside the root`,
      );
    const fd = openSync(host, 'r+');
    try {
      writeSync(fd, Buffer.alloc(size), 0, size, uid * size);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** useradd -m: the home directory (parents root-owned 0755) with the skeleton copied in, all owned by the user. */
  private async createHome(defs: AccountDefaults, home: string, uid: number, gid: number): Promise<void> {
    const p = this.platform;
    // useradd only warns when the home exists, and copies nothing into it.
    if (await p.exists(home)) return;
    const parts = home.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const dir = `/${parts.slice(0, i).join('/')}`;
      if (!(await p.exists(dir))) await p.mkdir(dir, { mode: 0o755, owner: '0:0' });
    }
    const mode = defNumber(defs, 'HOME_MODE', 0o777 & ~defNumber(defs, 'UMASK', 0o022));
    const owner = `${uid}:${gid}`;
    await p.mkdir(home, { mode, owner });
    await this.copySkeleton(defs.useradd.get('SKEL') ?? '/etc/skel', home, owner);
  }

  private async copySkeleton(from: string, to: string, owner: string): Promise<void> {
    const p = this.platform;
    const names = await p.listDir(from).catch(() => [] as string[]);
    for (const name of names) {
      const src = posix.join(from, name);
      const dest = posix.join(to, name);
      // The folder resolved inside the root, the entry itself not followed: a link in the skeleton is copied as a link.
      const srcHost = posix.join(await p.resolvedHostPath(from), name);
      const st = lstatSync(srcHost, { throwIfNoEntry: false });
      if (!st) continue;
      const mode = st.mode & 0o7777;
      if (st.isSymbolicLink()) {
        await p.symlink(readlinkSync(srcHost), dest);
      } else if (st.isDirectory()) {
        await p.mkdir(dest, { mode, owner });
        await this.copySkeleton(src, dest, owner);
      } else if (st.isFile()) {
        await p.writeFile(dest, await p.readFile(src), { mode, owner });
        utimesSync(await p.resolvedHostPath(dest), st.atime, st.mtime);
      }
    }
  }

  /** usermod -a -G GROUPS USER: adds USER where it is not yet a member; only changed groups are written. */
  async addToGroups(user: string, groups: string[]): Promise<boolean> {
    const tx = await AccountTransaction.open(this.platform, ['passwd', 'shadow', 'group', 'gshadow']);
    const group = tx.read('group');
    if (!group || !tx.read('passwd')?.find(user) || groups.some((g) => !group.find(g))) {
      await tx.abandon();
      return false;
    }
    for (const name of ['group', 'gshadow'] as const) {
      const file = tx.read(name);
      if (!file) continue;
      let changed = false;
      for (const g of groups) changed = file.addMember(g, user) || changed;
      if (changed) tx.change(name);
    }
    await tx.commit();
    return true;
  }

  /** A change to USERS' shadow entries (passwd -l, passwd --expire, chpasswd -e); false when one has none. */
  private async changeShadow(users: string[], edit: (entry: string[], user: string) => void): Promise<boolean> {
    const tx = await AccountTransaction.open(this.platform, ['passwd', 'shadow']);
    const passwd = tx.read('passwd');
    const shadow = tx.read('shadow');
    if (!passwd || !shadow || users.some((u) => passwd.find(u)?.[1] !== 'x' || !shadow.find(u))) {
      await tx.abandon();
      return false;
    }
    const changed = tx.change('shadow');
    for (const u of users) {
      const entry = [...(changed.find(u) as string[])];
      while (entry.length < 9) entry.push('');
      edit(entry, u);
      changed.replace(entry);
    }
    await tx.commit();
    return true;
  }

  /** passwd -l: a '!' before the hash (once). */
  lockPassword(user: string): Promise<boolean> {
    return this.changeShadow([user], (e) => {
      if (!(e[1] ?? '').startsWith('!')) e[1] = `!${e[1] ?? ''}`;
    });
  }

  /**
   * passwd -u, then passwd -d where it refuses: one leading '!' taken off the hash, which leaves an account whose
   * hash was only the lock with the empty password 25.1 then gives it.
   */
  unlockPassword(user: string): Promise<boolean> {
    return this.changeShadow([user], (e) => {
      e[1] = (e[1] ?? '').replace(/^!/, '');
    });
  }

  /** chpasswd -e: the given hashes, with the change dated today. */
  setHashes(entries: Array<{ user: string; password: string }>): Promise<boolean> {
    const byUser = new Map(entries.map((e) => [e.user, e.password]));
    return this.changeShadow([...byUser.keys()], (e, u) => {
      e[1] = byUser.get(u) as string;
      e[2] = today();
    });
  }

  /** passwd --expire: the last change set to 0, so the password must be changed at next login. */
  expirePassword(user: string): Promise<boolean> {
    return this.changeShadow([user], (e) => {
      e[2] = '0';
    });
  }
}
