// Every cloudbase-init plugin kiln implements, in one explicit list, and the class paths it knows but lacks.
import { azureGuestAgentPlugin } from './azure-guest-agent';
import { bcdConfigPlugin } from './bcd-config';
import { bootStatusPolicyPlugin } from './boot-status-policy';
import { createUserPlugin } from './create-user';
import { displayIdleTimeoutPlugin } from './display-idle-timeout';
import { ephemeralDiskPlugin } from './ephemeral-disk';
import { extendVolumesPlugin } from './extend-volumes';
import { localScriptsPlugin } from './local-scripts';
import { mtuPlugin } from './mtu';
import { networkConfigPlugin } from './network-config';
import { ntpClientPlugin } from './ntp-client';
import { pageFilesPlugin } from './page-files';
import type { Plugin } from './plugin';
import { rdpPostCertificateThumbprintPlugin } from './rdp-post-certificate-thumbprint';
import { rdpSettingsPlugin } from './rdp-settings';
import { sanPolicyPlugin } from './san-policy';
import { serverCertificatesPlugin } from './server-certificates';
import { setHostNamePlugin } from './set-host-name';
import { setUserPasswordPlugin } from './set-user-password';
import { setUserSshPublicKeysPlugin } from './set-user-ssh-public-keys';
import { trimConfigPlugin } from './trim-config';
import { userDataPlugin } from './user-data';
import { windowsAutoUpdatesPlugin } from './windows-auto-updates';
import { windowsLicensingPlugin } from './windows-licensing';
import { winrmCertificateAuthPlugin } from './winrm-certificate-auth';
import { winrmListenerPlugin } from './winrm-listener';

export const PLUGINS: Plugin[] = [
  mtuPlugin,
  ntpClientPlugin,
  setHostNamePlugin,
  createUserPlugin,
  networkConfigPlugin,
  windowsLicensingPlugin,
  setUserSshPublicKeysPlugin,
  userDataPlugin,
  setUserPasswordPlugin,
  winrmListenerPlugin,
  winrmCertificateAuthPlugin,
  localScriptsPlugin,
  rdpSettingsPlugin,
  windowsAutoUpdatesPlugin,
  sanPolicyPlugin,
  trimConfigPlugin,
  pageFilesPlugin,
  displayIdleTimeoutPlugin,
  bootStatusPolicyPlugin,
  bcdConfigPlugin,
  ephemeralDiskPlugin,
  extendVolumesPlugin,
  serverCertificatesPlugin,
  rdpPostCertificateThumbprintPlugin,
  azureGuestAgentPlugin,
];

/** cloudbase-init plugins kiln does not implement yet: configuring one is an error that says so. */
export const MISSING_PLUGINS: string[] = [];

/** The plugin for a class path from the `plugins` option (the short class name alone is accepted too). */
export function findPlugin(classPath: string, plugins: Plugin[] = PLUGINS): Plugin | undefined {
  const short = classPath.split('.').pop();
  return plugins.find((p) => p.classPath === classPath || p.name === classPath || p.name === short);
}
