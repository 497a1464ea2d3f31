// Azure's ovf-env.xml for a Windows VM (WindowsProvisioningConfigurationSet), read as cloudbase-init's AzureService
// reads it.
import { childrenNamed, parseXml, XmlError, type XmlElement } from '../../util/xml-reader';
import { SourceError } from '../source-error';
import { WA_NS } from './ovf-env';

/** cloudbase-init's KMS host when PlatformSettings names none. */
export const DEFAULT_KMS_HOST = 'kms.core.windows.net';

export interface WinRmListener {
  protocol: string;
  certificateThumbprint?: string;
}

export interface WindowsOvfEnv {
  adminUsername: string;
  adminPassword?: string;
  computerName: string;
  enableAutomaticUpdates: boolean;
  winrmListeners: WinRmListener[];
  /** The set has a CustomData element: then CustomData.bin must be on the drive (cloudbase-init refuses otherwise). */
  hasCustomData: boolean;
  /**
   * PlatformSettings' ProvisionGuestAgent and GuestAgentPackageName (cloudbase-init's
   * get_vm_agent_package_provisioning_data).
   */
  provisionGuestAgent: boolean;
  guestAgentPackageName?: string;
  kmsHost: string;
  useAvma: boolean;
}

function child(parent: XmlElement, name: string): XmlElement | undefined {
  return childrenNamed(parent, WA_NS, name)[0];
}

function need(parent: XmlElement, name: string, where: string): XmlElement {
  const el = child(parent, name);
  if (!el) throw new SourceError('Azure', `${where}: no ${name} element`);
  return el;
}

/** cloudbase-init compares these flags lower-cased with 'true'. */
function isTrue(el: XmlElement | undefined): boolean {
  return (el?.text ?? '').trim().toLowerCase() === 'true';
}

/**
 * Parses the Windows ovf-env.xml: AdminUsername and ComputerName are required, as cloudbase-init's getters need them.
 */
export function parseWindowsOvfEnv(bytes: Uint8Array, where: string): WindowsOvfEnv {
  let root: XmlElement;
  try {
    root = parseXml(Buffer.from(bytes).toString('utf8'), where);
  } catch (err) {
    if (err instanceof XmlError) throw new SourceError('Azure', `invalid ovf-env.xml: ${err.message}`, { cause: err });
    throw err;
  }
  const provisioning = need(root, 'ProvisioningSection', where);
  const set = child(provisioning, 'WindowsProvisioningConfigurationSet');
  if (!set) {
    const linux = child(provisioning, 'LinuxProvisioningConfigurationSet');
    throw new SourceError(
      'Azure',
      `${where}: no WindowsProvisioningConfigurationSet${linux ? " (this is a Linux VM's provisioning data)" : ''}`,
    );
  }
  const at = `${where} WindowsProvisioningConfigurationSet`;
  const adminUsername = need(set, 'AdminUsername', at).text.trim();
  const computerName = need(set, 'ComputerName', at).text.trim();
  if (!adminUsername) throw new SourceError('Azure', `${at}: AdminUsername is empty`);
  if (!computerName) throw new SourceError('Azure', `${at}: ComputerName is empty`);
  const env: WindowsOvfEnv = {
    adminUsername,
    computerName,
    enableAutomaticUpdates: isTrue(child(set, 'EnableAutomaticUpdates')),
    winrmListeners: [],
    hasCustomData: child(set, 'CustomData') !== undefined,
    provisionGuestAgent: false,
    kmsHost: DEFAULT_KMS_HOST,
    useAvma: false,
  };
  const password = child(set, 'AdminPassword');
  if (password && password.text !== '') env.adminPassword = password.text;
  const winrm = child(set, 'WinRM');
  const listeners = winrm ? child(winrm, 'Listeners') : undefined;
  for (const l of listeners ? childrenNamed(listeners, WA_NS, 'Listener') : []) {
    const listener: WinRmListener = { protocol: need(l, 'Protocol', `${at} WinRM Listener`).text.trim() };
    const thumb = child(l, 'CertificateThumbprint');
    if (thumb) listener.certificateThumbprint = thumb.text.trim();
    env.winrmListeners.push(listener);
  }
  const settingsSection = child(root, 'PlatformSettingsSection');
  const settings = settingsSection ? child(settingsSection, 'PlatformSettings') : undefined;
  if (settings) {
    env.provisionGuestAgent = isTrue(child(settings, 'ProvisionGuestAgent'));
    const pkg = child(settings, 'GuestAgentPackageName')?.text.trim();
    if (pkg) env.guestAgentPackageName = pkg;
    const kms = child(settings, 'KmsServerHostname')?.text.trim();
    if (kms) env.kmsHost = kms;
    env.useAvma = isTrue(child(settings, 'UseAVMA'));
  }
  return env;
}
