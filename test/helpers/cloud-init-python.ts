// Runs a Python snippet in a Debian parity rootfs (bookworm's cloud-init 22.4 or trixie's 25.1), with a private tmpfs
// on /tmp so nothing is left in the shared cache.
import { spawnSync } from 'node:child_process';

/**
 * Runs SCRIPT in ROOTFS (no network; /tmp empty and private) with ARG as sys.argv[1]; its stdout, or throws with
 * its stderr. ARG travels on stdin: Linux caps one argv string at 128 KiB, and a log to compress is larger.
 */
export function runCloudInitPython(rootfs: string, script: string, arg: string): string {
  const shell = 'mount -t tmpfs kiln-tmp "$1/tmp" && exec chroot "$1" env PYTHONDONTWRITEBYTECODE=1 python3 -c "$2"';
  const program = `import sys\nsys.argv[1:] = [sys.stdin.read()]\n${script}`;
  const r = spawnSync('unshare', ['--mount', '--net', '--fork', 'sh', '-c', shell, 'sh', rootfs, program], {
    input: arg,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0)
    throw new Error(`python in ${rootfs} failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`}): ${r.stderr}`);
  return r.stdout;
}
