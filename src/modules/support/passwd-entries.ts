// Looks up users in the target's /etc/passwd and /etc/group (name, ids, home, groups) without running anything.
import type { Platform } from '../../platform/platform';

export interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
  home: string;
  shell: string;
}

export async function lookupUser(platform: Platform, name: string): Promise<PasswdEntry | undefined> {
  const text = (await platform.readTextIfExists('/etc/passwd')) ?? '';
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f[0] === name && f.length >= 7)
      return { name, uid: Number(f[2]), gid: Number(f[3]), home: f[5] as string, shell: f[6] as string };
  }
  return undefined;
}

export async function groupMembers(platform: Platform, group: string): Promise<string[] | undefined> {
  const text = (await platform.readTextIfExists('/etc/group')) ?? '';
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f[0] === group) return (f[3] ?? '').split(',').filter(Boolean);
  }
  return undefined;
}
