// doas rules for users_groups (newer cloud-init's write_doas_rules): /etc/doas.conf, 0440, one block per user, checked
// first.
import type { Platform } from '../../platform/platform';
import type { Log } from '../../util/log';
import { makeHeader } from './cloud-header';

export const DOAS_CONF = '/etc/doas.conf';

/** A rule for USER: permit or deny, naming the user (or one of its groups, ':group') as the identity. */
function ruleIsForUser(rule: string, user: string): boolean {
  const words = rule.trim().split(/\s+/);
  if (words[0] !== 'permit' && words[0] !== 'deny') return false;
  // The identity follows the options (nopass, persist, keepenv, setenv { … }) and comes before as/cmd/args.
  const stop = words.findIndex((w, i) => i > 0 && (w === 'as' || w === 'cmd'));
  const head = stop === -1 ? words.slice(1) : words.slice(1, stop);
  return head.includes(user) || head.some((w) => w.startsWith(':'));
}

/**
 * Writes USER's RULES unless one of them is not a permit/deny rule for that user (then none is written, with a
 * warning, as cloud-init does). A block already in the file is not added twice. When the target has doas, its own
 * parser (`doas -C`) checks the result.
 */
export async function writeDoasRules(
  platform: Platform,
  log: Log,
  user: string,
  rules: readonly string[],
  now: Date = new Date(),
): Promise<void> {
  const bad = rules.find((r) => !ruleIsForUser(r, user));
  if (bad !== undefined) {
    log.warn(`Invalid doas rule ${JSON.stringify(bad)} for user '${user}', not writing any doas rules for user!`);
    return;
  }
  const content = `${['', `# cloud-init User rules for ${user}`, ...rules].join('\n')}\n`;
  const old = await platform.readTextIfExists(DOAS_CONF);
  if (old === undefined) await platform.writeFile(DOAS_CONF, [makeHeader(now), content].join('\n'), { mode: 0o440 });
  else if (!old.includes(content)) await platform.writeFile(DOAS_CONF, content, { append: true });
  for (const doas of ['/usr/bin/doas', '/bin/doas', '/usr/local/bin/doas']) {
    if (!(await platform.exists(doas))) continue;
    const r = await platform.run([doas, '-C', DOAS_CONF], { allowFailure: true });
    if (r.code !== 0)
      log.warn(
        `${DOAS_CONF} does not parse after the rules for ${user}: ${r.stderr.trim() || `doas -C exited with code ${r.code}`}`,
      );
    break;
  }
}
