// cloud-init's on-disk layout (/var/lib/cloud, /run/cloud-init), taken from system_info.paths in the config.
import { posix } from 'node:path';
import type { ConfigMap } from '../config/parse-yaml-config';

export interface CloudPaths {
  cloudDir: string;
  runDir: string;
  /** /var/lib/cloud/instance (a link to instances/<iid>). */
  instanceLink: string;
  dataDir: string;
  seedDir: string;
  /** Semaphores of `once` modules: /var/lib/cloud/sem. */
  onceSemDir: string;
  /** /run/cloud-init/status.json: what readers open (a link, as cloud-init makes it). */
  statusFile: string;
  resultFile: string;
  /** /var/lib/cloud/data/status.json and result.json: the files the links point at. */
  statusDataFile: string;
  resultDataFile: string;
  instanceDataFile: string;
  instanceDataSensitiveFile: string;
  combinedCloudConfigFile: string;
  cloudIdFile: string;
  /** Disabled marker: /etc/cloud/cloud-init.disabled. */
  disabledFile: string;
  logFile: string;
  outputLogFile: string;
  /** kiln's event log (start/finish of every stage and module), what `analyze` reads. */
  eventLogFile: string;
  /** instances/<iid> */
  instanceDir(iid: string): string;
  /** instances/<iid>/sem */
  instanceSemDir(iid: string): string;
}

function strip(dir: string): string {
  return dir.length > 1 ? dir.replace(/\/+$/, '') : dir;
}

export function cloudPaths(config: ConfigMap = {}): CloudPaths {
  const sys = (config.system_info ?? {}) as Record<string, unknown>;
  const paths = (sys.paths ?? {}) as Record<string, unknown>;
  const cloudDir = strip(typeof paths.cloud_dir === 'string' ? paths.cloud_dir : '/var/lib/cloud');
  const runDir = strip(typeof paths.run_dir === 'string' ? paths.run_dir : '/run/cloud-init');
  const logFile = typeof config.def_log_file === 'string' ? config.def_log_file : '/var/log/cloud-init.log';
  return {
    cloudDir,
    runDir,
    instanceLink: posix.join(cloudDir, 'instance'),
    dataDir: posix.join(cloudDir, 'data'),
    seedDir: posix.join(cloudDir, 'seed'),
    onceSemDir: posix.join(cloudDir, 'sem'),
    statusFile: posix.join(runDir, 'status.json'),
    resultFile: posix.join(runDir, 'result.json'),
    statusDataFile: posix.join(cloudDir, 'data', 'status.json'),
    resultDataFile: posix.join(cloudDir, 'data', 'result.json'),
    instanceDataFile: posix.join(runDir, 'instance-data.json'),
    instanceDataSensitiveFile: posix.join(runDir, 'instance-data-sensitive.json'),
    combinedCloudConfigFile: posix.join(runDir, 'combined-cloud-config.json'),
    cloudIdFile: posix.join(runDir, 'cloud-id'),
    disabledFile: '/etc/cloud/cloud-init.disabled',
    logFile,
    outputLogFile: '/var/log/cloud-init-output.log',
    eventLogFile: '/var/log/kiln-events.jsonl',
    instanceDir: (iid) => posix.join(cloudDir, 'instances', iid),
    instanceSemDir: (iid) => posix.join(cloudDir, 'instances', iid, 'sem'),
  };
}
