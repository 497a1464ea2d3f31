// Updating KEY=value shell-variable files (/etc/sysconfig/*, /etc/locale.conf) as cloud-init's rhel_util does.
import type { Platform } from '../../platform/platform';

function quote(value: string): string {
  return /^[A-Za-z0-9_.,:/@+=-]*$/.test(value) ? value : `"${value.replace(/(["\\$`])/g, '\\$1')}"`;
}

/** Sets each key (replacing its line or appending one), keeping every other line; HEADER goes on a new file. */
export async function updateSysconfigFile(
  platform: Platform,
  path: string,
  values: Record<string, string>,
  header: string,
): Promise<void> {
  const before = await platform.readTextIfExists(path);
  const lines = before === undefined ? [] : before.replace(/\n$/, '').split('\n');
  for (const [key, value] of Object.entries(values)) {
    if (value === '') continue;
    const line = `${key}=${quote(value)}`;
    const at = lines.findIndex((l) => new RegExp(`^\\s*(export\\s+)?${key}=`).test(l));
    if (at >= 0) lines[at] = line;
    else lines.push(line);
  }
  if (before === undefined) lines.unshift(header);
  await platform.writeFile(path, `${lines.join('\n')}\n`, { mode: 0o644 });
}
