// What a boot of the build machine left: instance state, the seed, logs and the machine id.
import type { CloudPaths } from '../runner/cloud-paths';
import type { Finding, ImageFiles } from './finding';

/** Whether the checked tree's /run is a mounted tmpfs: true on the running system, false in an offline image. */
async function runIsTmpfs(files: ImageFiles): Promise<boolean> {
  const mounts = (await files.readTextIfExists('/proc/self/mounts')) ?? '';
  return mounts.split('\n').some((line) => {
    const [, mountPoint, type] = line.split(' ');
    return mountPoint === '/run' && type === 'tmpfs';
  });
}

export async function checkInstanceState(files: ImageFiles, paths: CloudPaths): Promise<Finding[]> {
  const out: Finding[] = [];
  const state = (await files.listDir(paths.cloudDir).catch(() => [] as string[])).filter((n) => n !== 'seed').sort();
  if (state.length > 0) {
    out.push({
      check: 'instance-state',
      severity: 'error',
      path: paths.cloudDir,
      message: `${paths.cloudDir} holds the build's instance state (${state.join(', ')}): per-once modules would not run on instances of this image, and the build's instance data would be read`,
      fix: 'cloud-init clean',
    });
  }
  const seeds = await files.listDir(paths.seedDir).catch(() => [] as string[]);
  if (seeds.length > 0) {
    out.push({
      check: 'seed',
      severity: 'warning',
      path: paths.seedDir,
      message: `a seed is left in ${paths.seedDir} (${seeds.sort().join(', ')}): every instance of this image would read it (keep it only if the image is meant to carry it)`,
      fix: 'cloud-init clean --seed',
    });
  }
  // The running boot's own state: cloud-init clean leaves it (as cloud-init 25.1's), and on a running system /run is a
  // tmpfs no captured disk holds. Only an image whose /run is a plain folder (an offline tree) would carry it.
  const run = await files.listDir(paths.runDir).catch(() => [] as string[]);
  if (run.length > 0 && !(await runIsTmpfs(files))) {
    out.push({
      check: 'instance-state',
      severity: 'warning',
      path: paths.runDir,
      message: `${paths.runDir} is not empty in the image (a tmpfs hides it at boot; the files are the build's)`,
      fix: `rm -rf ${paths.runDir}/*`,
    });
  }
  const logs = [];
  for (const f of [paths.logFile, paths.outputLogFile, paths.eventLogFile]) if (await files.exists(f)) logs.push(f);
  if (logs.length > 0) {
    out.push({
      check: 'logs',
      severity: 'warning',
      path: logs[0] as string,
      message: `the build's logs are left (${logs.join(', ')}): they may hold its user data's output, and instances would append to them`,
      fix: 'cloud-init clean --logs',
    });
  }
  const machineId = (await files.readTextIfExists('/etc/machine-id'))?.trim();
  if (machineId !== undefined && machineId !== '' && machineId !== 'uninitialized') {
    out.push({
      check: 'machine-id',
      severity: 'error',
      path: '/etc/machine-id',
      message:
        "/etc/machine-id holds the build machine's id: every instance of this image would share it (DHCP client ids, journald, systemd's network names)",
      fix: 'cloud-init clean --machine-id',
    });
  }
  const dbusId = '/var/lib/dbus/machine-id';
  const dbusLink = await files.readLink(dbusId);
  if (dbusLink === undefined && ((await files.readTextIfExists(dbusId))?.trim() ?? '') !== '') {
    out.push({
      check: 'machine-id',
      severity: 'error',
      path: dbusId,
      message: `${dbusId} holds the build machine's id and is not a link to /etc/machine-id`,
      fix: `rm ${dbusId} && ln -s /etc/machine-id ${dbusId}`,
    });
  }
  return out;
}
