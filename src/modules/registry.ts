// The one explicit list of cloud-config modules kiln knows, by cloud-init name; the runner looks modules up here.
import { bootcmd } from './bootcmd';
import { caCerts } from './ca-certs';
import type { Module } from './module';
import { diskSetup } from './disk-setup';
import { growpart } from './growpart';
import { mounts } from './mounts';
import { resizefs } from './resizefs';
import { resolvConf } from './resolv-conf';
import { rsyslog } from './rsyslog';
import { seedRandom } from './seed-random';
import { setHostname } from './set-hostname';
import { setPasswords } from './set-passwords';
import { ssh } from './ssh';
import { updateEtcHosts } from './update-etc-hosts';
import { updateHostname } from './update-hostname';
import { usersGroups } from './users-groups';
import { writeFiles } from './write-files';

/**
 * Every module, in the order of cloud-init's default cloud.cfg module lists (init, then config, then final).
 * Each entry carries cloud-init's name, stage, default frequency, distros and activating keys.
 */
export const MODULES: readonly Module[] = [
  // init stage (cloud_init_modules)
  seedRandom,
  bootcmd,
  writeFiles,
  growpart,
  resizefs,
  diskSetup,
  mounts,
  setHostname,
  updateHostname,
  updateEtcHosts,
  caCerts,
  rsyslog,
  usersGroups,
  ssh,
  setPasswords,
  resolvConf,
  // config stage (cloud_config_modules)
  // final stage (cloud_final_modules)
];

/** The module cloud-init calls NAME (with or without the cc_ prefix, '-' or '_'), or undefined. */
export function findModule(name: string): Module | undefined {
  const wanted = name.replace(/^cc_/, '').replace(/-/g, '_');
  return MODULES.find((m) => m.name === wanted);
}
