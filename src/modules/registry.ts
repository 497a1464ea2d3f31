// The one explicit list of cloud-config modules kiln knows, by cloud-init name; the runner looks modules up here.
import { bootcmd } from './bootcmd';
import { byobuModule } from './byobu';
import { caCerts } from './ca-certs';
import { fanModule } from './fan';
import { RENAMED_MODULES, type Module } from './module';
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
import { ubuntuAutoinstallModule } from './ubuntu-autoinstall';
import { updateEtcHosts } from './update-etc-hosts';
import { updateHostname } from './update-hostname';
import { usersGroups } from './users-groups';
import { writeFiles } from './write-files';
import { apkConfigureModule } from './apk-configure';
import { aptConfigureModule } from './apt-configure';
import { aptPipeliningModule } from './apt-pipelining';
import { disableEc2MetadataModule } from './disable-ec2-metadata';
import { finalMessageModule } from './final-message';
import { grubDpkgModule } from './grub-dpkg';
import { installHotplugModule } from './install-hotplug';
import { keyboardModule } from './keyboard';
import { landscapeModule } from './landscape';
import { keysToConsoleModule } from './keys-to-console';
import { localeModule } from './locale';
import { ntpModule } from './ntp';
import { packageUpdateUpgradeInstallModule } from './package-update-upgrade-install';
import { phoneHomeModule } from './phone-home';
import { powerStateChangeModule } from './power-state-change';
import { resetRmcModule } from './reset-rmc';
import { refreshRmcAndInterfaceModule } from './refresh-rmc-and-interface';
import { rightscaleUserdataModule } from './rightscale-userdata';
import { runcmdModule } from './runcmd';
import { scriptsPerBootModule } from './scripts-per-boot';
import { scriptsPerInstanceModule } from './scripts-per-instance';
import { scriptsPerOnceModule } from './scripts-per-once';
import { scriptsUserModule } from './scripts-user';
import { scriptsVendorModule } from './scripts-vendor';
import { sshAuthkeyFingerprintsModule } from './ssh-authkey-fingerprints';
import { spacewalkModule } from './spacewalk';
import { sshImportIdModule } from './ssh-import-id';
import { timezoneModule } from './timezone';
import { writeFilesDeferredModule } from './write-files-deferred';
import { yumAddRepoModule } from './yum-add-repo';
import { zypperAddRepoModule } from './zypper-add-repo';
import { puppetModule } from './puppet';
import { chefModule } from './chef';
import { ansibleModule } from './ansible';
import { mcollectiveModule } from './mcollective';
import { saltMinionModule } from './salt-minion';
import { snapModule } from './snap';
import { lxdModule } from './lxd';
import { wireguardModule } from './wireguard';
import { raspberryPiModule } from './raspberry-pi';
import { rhSubscriptionModule } from './rh-subscription';
import { ubuntuDriversModule } from './ubuntu-drivers';
import { ubuntuProModule } from './ubuntu-pro';

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
  ubuntuAutoinstallModule,
  wireguardModule,
  snapModule,
  sshImportIdModule,
  keyboardModule,
  localeModule,
  grubDpkgModule,
  aptConfigureModule,
  aptPipeliningModule,
  ubuntuProModule,
  ntpModule,
  timezoneModule,
  disableEc2MetadataModule,
  rhSubscriptionModule,
  runcmdModule,
  byobuModule,
  yumAddRepoModule,
  spacewalkModule,
  zypperAddRepoModule,
  apkConfigureModule,
  raspberryPiModule,
  // final stage (cloud_final_modules)
  packageUpdateUpgradeInstallModule,
  fanModule,
  landscapeModule,
  lxdModule,
  ubuntuDriversModule,
  writeFilesDeferredModule,
  puppetModule,
  chefModule,
  ansibleModule,
  mcollectiveModule,
  saltMinionModule,
  resetRmcModule,
  refreshRmcAndInterfaceModule,
  rightscaleUserdataModule,
  scriptsVendorModule,
  scriptsPerOnceModule,
  scriptsPerBootModule,
  scriptsPerInstanceModule,
  scriptsUserModule,
  sshAuthkeyFingerprintsModule,
  keysToConsoleModule,
  installHotplugModule,
  phoneHomeModule,
  finalMessageModule,
  powerStateChangeModule,
];

/** The module cloud-init calls NAME (with or without the cc_ prefix, '-' or '_'), or undefined. */
export function findModule(name: string): Module | undefined {
  const given = name.replace(/^cc_/, '').replace(/-/g, '_');
  const wanted = RENAMED_MODULES[given] ?? given;
  return MODULES.find((m) => m.name === wanted);
}
