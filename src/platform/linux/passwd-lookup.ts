// Turns `user[:group]` owner strings into numeric ids using the target root's /etc/passwd and /etc/group.

export interface OwnerIds {
  uid: number;
  gid: number;
}

function parseColonFile(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(':'));
}

/**
 * Resolves OWNER (`user`, `user:group`, `:group`, numeric ids) against passwd/group texts; throws naming the unknown
 * name.
 */
export function resolveOwner(owner: string, passwdText: string, groupText: string): OwnerIds {
  const [userPart = '', groupPart] = owner.split(/[:.]/, 2);
  const passwd = parseColonFile(passwdText);
  const groups = parseColonFile(groupText);
  let uid = -1;
  let gid = -1;
  if (userPart !== '') {
    if (/^\d+$/.test(userPart)) uid = Number(userPart);
    else {
      const row = passwd.find((r) => r[0] === userPart);
      if (!row) throw new Error(`user '${userPart}' does not exist in the target's /etc/passwd`);
      uid = Number(row[2]);
      gid = Number(row[3]);
    }
  }
  if (groupPart !== undefined && groupPart !== '') {
    if (/^\d+$/.test(groupPart)) gid = Number(groupPart);
    else {
      const row = groups.find((r) => r[0] === groupPart);
      if (!row) throw new Error(`group '${groupPart}' does not exist in the target's /etc/group`);
      gid = Number(row[2]);
    }
  }
  return { uid, gid };
}
