// Checks a password against a crypt(3) hash with the libcrypt of a root (the Debian rootfs), through its perl,
// which every Debian has (perl-base is essential): whatever method the distro's tools hashed with.
import { spawnSync } from 'node:child_process';

export function cryptMatchesInRoot(root: string, password: string, hash: string): boolean {
  const r = spawnSync(
    'chroot',
    [root, 'perl', '-e', 'exit(crypt($ARGV[0], $ARGV[1]) eq $ARGV[1] ? 0 : 1)', password, hash],
    { encoding: 'utf8' },
  );
  if (r.status !== 0 && r.status !== 1) throw new Error(`perl in ${root} failed: ${r.stderr || r.error?.message}`);
  return r.status === 0 && hash.length > 0;
}
