// Every cloud-config module kiln has: the modules registry plus the config/final-stage modules kept beside it.
import type { Module } from '../modules/module';
import { MODULES } from '../modules/registry';
import { apkConfigureModule } from '../modules/apk-configure';
import { aptConfigureModule } from '../modules/apt-configure';
import { aptPipeliningModule } from '../modules/apt-pipelining';
import { disableEc2MetadataModule } from '../modules/disable-ec2-metadata';
import { finalMessageModule } from '../modules/final-message';
import { keyboardModule } from '../modules/keyboard';
import { keysToConsoleModule } from '../modules/keys-to-console';
import { localeModule } from '../modules/locale';
import { ntpModule } from '../modules/ntp';
import { packageUpdateUpgradeInstallModule } from '../modules/package-update-upgrade-install';
import { phoneHomeModule } from '../modules/phone-home';
import { powerStateChangeModule } from '../modules/power-state-change';
import { runcmdModule } from '../modules/runcmd';
import { scriptsPerBootModule } from '../modules/scripts-per-boot';
import { scriptsPerInstanceModule } from '../modules/scripts-per-instance';
import { scriptsPerOnceModule } from '../modules/scripts-per-once';
import { scriptsUserModule } from '../modules/scripts-user';
import { scriptsVendorModule } from '../modules/scripts-vendor';
import { sshAuthkeyFingerprintsModule } from '../modules/ssh-authkey-fingerprints';
import { sshImportIdModule } from '../modules/ssh-import-id';
import { timezoneModule } from '../modules/timezone';
import { writeFilesDeferredModule } from '../modules/write-files-deferred';
import { yumAddRepoModule } from '../modules/yum-add-repo';
import { zypperAddRepoModule } from '../modules/zypper-add-repo';

/** Config- and final-stage modules not (yet) listed in src/modules/registry.ts. */
const LATE_MODULES: Module[] = [
  sshImportIdModule, keyboardModule, localeModule, aptConfigureModule, aptPipeliningModule, yumAddRepoModule, zypperAddRepoModule, apkConfigureModule,
  ntpModule, timezoneModule, disableEc2MetadataModule, runcmdModule,
  packageUpdateUpgradeInstallModule, writeFilesDeferredModule, scriptsVendorModule, scriptsPerOnceModule, scriptsPerBootModule, scriptsPerInstanceModule,
  scriptsUserModule, sshAuthkeyFingerprintsModule, keysToConsoleModule, phoneHomeModule, finalMessageModule, powerStateChangeModule,
];

/** The registry first; a late module of the same name is not added twice. */
export function allModules(): Module[] {
  const out = [...MODULES];
  for (const m of LATE_MODULES) if (!out.some((x) => x.name === m.name)) out.push(m);
  return out;
}
