// Sudo rules for users_groups: /etc/sudoers.d/90-cloud-init-users and the #includedir line in /etc/sudoers
// (distro.write_sudo_rules).
import { posix } from 'node:path';
import type { Platform } from '../../platform/platform';
import { makeHeader } from './cloud-header';

export const CLOUD_INIT_SUDOERS = '/etc/sudoers.d/90-cloud-init-users';

/** Makes sure /etc/sudoers includes DIR (adding '#includedir DIR' as cloud-init does) and that DIR exists (0750). */
export async function ensureSudoDir(platform: Platform, dir: string, now: Date): Promise<void> {
  const base = '/etc/sudoers';
  const text = await platform.readTextIfExists(base);
  const included = (text ?? '').split('\n').some((l) => {
    const m = /^[#|@]includedir\s+(.*)$/.exec(l.trim());
    return !!m && !!m[1]?.trim() && posix.resolve('/', (m[1] as string).trim()) === dir;
  });
  if (!included) {
    if (text === undefined) {
      const body = [
        '# See sudoers(5) for more information on "#include" directives:',
        '',
        makeHeader(now, 'added'),
        `#includedir ${dir}`,
        '',
      ].join('\n');
      await platform.writeFile(base, body, { mode: 0o440 });
    } else {
      await platform.writeFile(base, ['', makeHeader(now, 'added'), `#includedir ${dir}`, ''].join('\n'), {
        append: true,
      });
    }
  }
  await platform.mkdir(dir, { mode: 0o750 });
}

/**
 * Appends USER's RULES (a string or a list) to the cloud-init sudoers file, creating it 0440 with a header; rules the
 * file already holds, word for word, are not added again (25.1's write_sudo_rules: a new instance id does not repeat
 * the default user's rules).
 */
export async function writeSudoRules(
  platform: Platform,
  user: string,
  rules: string | string[],
  now: Date = new Date(),
  file = CLOUD_INIT_SUDOERS,
): Promise<void> {
  const lines = [
    '',
    `# User rules for ${user}`,
    ...(Array.isArray(rules) ? rules : [rules]).map((r) => `${user} ${r}`),
  ];
  const content = `${lines.join('\n')}\n`;
  await ensureSudoDir(platform, posix.dirname(file), now);
  if (!(await platform.exists(file)))
    await platform.writeFile(file, [makeHeader(now), content].join('\n'), { mode: 0o440 });
  else if (!((await platform.readTextIfExists(file)) ?? '').includes(content))
    await platform.writeFile(file, content, { append: true });
}
