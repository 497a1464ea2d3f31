// Accounts the build left usable: passwords in /etc/shadow and SSH keys in the users' authorized_keys.
import { posix } from 'node:path';
import type { Finding, ImageFiles } from './finding';

/** A shadow password field someone can log in with: a hash, or empty (no password at all). '!…' and '*' are locked. */
function usable(field: string): boolean {
  return !field.startsWith('!') && !field.startsWith('*');
}

export async function checkAccounts(files: ImageFiles): Promise<Finding[]> {
  const out: Finding[] = [];
  const shadow = (await files.readTextIfExists('/etc/shadow')) ?? '';
  for (const line of shadow.split('\n')) {
    const [name, password] = line.split(':');
    if (!name || password === undefined || !usable(password)) continue;
    out.push({
      check: 'passwords',
      severity: 'error',
      path: '/etc/shadow',
      message:
        password === ''
          ? `${name} has an empty password: anyone can log in as ${name} on every instance`
          : `${name} has a password (set by the build?): every instance of this image shares it`,
      fix: `passwd --lock ${name}${name === 'root' ? '' : ` (or userdel --remove ${name} for a user the build seed made)`}`,
    });
  }
  const passwd = (await files.readTextIfExists('/etc/passwd')) ?? '';
  for (const line of passwd.split('\n')) {
    const fields = line.split(':');
    const [name, , uid, , , home] = fields;
    if (!name || !home || uid === undefined || !(uid === '0' || Number(uid) >= 1000) || name === 'nobody') continue;
    const keys = posix.join(home, '.ssh', 'authorized_keys');
    const text = await files.readTextIfExists(keys);
    const count = (text ?? '').split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#')).length;
    if (count === 0) continue;
    out.push({
      check: 'authorized-keys',
      severity: 'warning',
      path: keys,
      message: `${keys} holds ${count} key${count === 1 ? '' : 's'} from the build: they log in as ${name} on every instance`,
      fix: `rm ${keys}`,
    });
  }
  return out;
}
