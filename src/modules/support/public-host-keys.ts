// cloud-init's get_public_host_keys: the host's /etc/ssh/ssh_host_*_key.pub files as (type, blob) pairs, for publishing
// to the datasource.
import type { Platform } from '../../platform/platform';
import type { HostKey } from '../../sources/datasource';

/** cc_ssh's HOST_KEY_PUBLISH_BLACKLIST: empty since 24.1 (which dropped DSA); 22.4's left the dsa key out. */
export const HOST_KEY_PUBLISH_BLACKLIST: readonly string[] = [];

/**
 * Every `/etc/ssh/ssh_host_<name>_key.pub` whose <name> is not in BLACKLIST, as the first two fields of its
 * text (a file with fewer is skipped). Sorted by file name (cloud-init takes glob's order, which is the directory's).
 */
export async function publicHostKeys(platform: Platform, blacklist: readonly string[]): Promise<HostKey[]> {
  let names: string[];
  try {
    names = await platform.listDir('/etc/ssh');
  } catch {
    return []; // no /etc/ssh to list: no host keys to publish
  }
  const keys: HostKey[] = [];
  for (const name of names.sort()) {
    const m = /^ssh_host_(.*)_key\.pub$/.exec(name);
    if (!m || blacklist.includes(m[1] as string)) continue;
    const text = await platform.readTextIfExists(`/etc/ssh/${name}`).catch(() => undefined);
    const fields = text?.trim().split(/\s+/) ?? [];
    if (fields.length > 1) keys.push({ type: fields[0] as string, value: fields[1] as string });
  }
  return keys;
}
