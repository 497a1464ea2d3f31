// Runs programs of another architecture (arm64 on an amd64 host) in a chroot, without touching the host's
// binfmt_misc: a new user namespace whose ids map one to one onto the host's (so files keep their real owners),
// with a private mount, pid and network namespace (no network: what runs there works on what is already on disk),
// mounts a binfmt_misc of its own (Linux ≥ 6.7 gives each user namespace one) and registers qemu-user-static there,
// with the F flag of Debian's binfmt.d file, so the interpreter is opened at registration and works inside the chroot.
// Nothing outlives the namespace.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** The architectures a tree can be built for; amd64 runs natively, the others through qemu-user-static. */
export type DebianArch = 'amd64' | 'arm64';

/** The architectures whose programs run here only through qemu-user-static. */
export type ForeignArch = Exclude<DebianArch, 'amd64'>;

/** qemu-user-static's name of each foreign architecture (its /usr/lib/binfmt.d/qemu-NAME.conf). */
const QEMU_NAME: Record<ForeignArch, string> = { arm64: 'aarch64' };

/**
 * The binfmt_misc registration line Debian's qemu-user-static ships for ARCH; a clear error when it is not installed.
 */
export function binfmtRegistration(arch: ForeignArch): string {
  const file = `/usr/lib/binfmt.d/qemu-${QEMU_NAME[arch]}.conf`;
  if (!existsSync(file))
    throw new Error(
      `${file} is missing: install qemu-user-static (apt-get install --no-install-recommends qemu-user-static) to run ${arch} programs`,
    );
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(':'));
  if (line === undefined) throw new Error(`${file} has no registration line`);
  return line;
}

/** The shell script that runs SCRIPT (sh) once ARCH's binfmt is registered in the namespace's own binfmt_misc. */
function namespaceScript(arch: ForeignArch, script: string): string {
  const register = binfmtRegistration(arch).replace(/'/g, `'\\''`);
  return [
    'set -e',
    `mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || { echo 'cannot mount a binfmt_misc of its own in a user namespace (needs Linux 6.7 or later); ${arch} programs cannot run here' >&2; exit 1; }`,
    `printf '%s\\n' '${register}' > /proc/sys/fs/binfmt_misc/register`,
    script,
  ].join('\n');
}

/**
 * Runs SCRIPT (host sh) in the namespace described above; SCRIPT typically chroots into a tree of ARCH. The
 * namespace's ids are mapped by this process (root) writing uid_map/gid_map while the child waits on its stdin, as
 * newuidmap would without /etc/subuid entries. Throws with the output's tail when SCRIPT fails.
 */
export function runWithForeignBinfmt(
  arch: ForeignArch,
  script: string,
  { timeoutMs = 60 * 60_000 }: { timeoutMs?: number } = {},
): string {
  const body = namespaceScript(arch, script);
  // The outer bash waits for unshare to enter its user namespace, maps it, then lets it go on.
  const outer = [
    'set -e',
    'fifo=$(mktemp -u /tmp/kiln-userns.XXXXXX); mkfifo "$fifo"',
    `unshare --user --mount --pid --net --fork --kill-child sh -c 'read go < "$0"; exec sh -c "$1"' "$fifo" "$KILN_NS_SCRIPT" &`,
    'pid=$!',
    'while [ "$(readlink /proc/$pid/ns/user)" = "$(readlink /proc/self/ns/user)" ]; do kill -0 $pid; sleep 0.05; done',
    "echo '0 0 4294967295' > /proc/$pid/uid_map",
    "echo '0 0 4294967295' > /proc/$pid/gid_map",
    'echo go > "$fifo"; rm -f "$fifo"',
    'wait $pid',
  ].join('\n');
  const r = spawnSync('bash', ['-c', outer], {
    encoding: 'utf8',
    env: { ...process.env, KILN_NS_SCRIPT: body },
    maxBuffer: 256 * 1024 * 1024,
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
  });
  if (r.status !== 0)
    throw new Error(
      `running in a ${arch} namespace failed (${r.status ?? r.error?.message ?? r.signal}): ${`${r.stdout}\n${r.stderr}`.trim().slice(-3000)}`,
    );
  return r.stdout;
}
