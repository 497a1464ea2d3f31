// Azure's ovf-env.xml (the provisioning media's one file): host name, user, password, SSH keys, custom data,
// preprovisioning flags.
import { childrenNamed, parseXml, XmlError, type XmlElement } from '../../util/xml-reader';
import { SourceError } from '../source-error';

export const OVF_NS = 'http://schemas.dmtf.org/ovf/environment/1';
export const WA_NS = 'http://schemas.microsoft.com/windowsazure';
/**
 * What cloud-init writes in place of the password in the copy it keeps (it fails Azure's complexity rules, so it is
 * never a real one).
 */
export const PASSWORD_REDACTION = 'REDACTED';

/** An SSH key entry: a key by value, or a fingerprint of a certificate the wireserver holds. */
export interface OvfPublicKey {
  fingerprint?: string;
  path?: string;
  value: string;
}

export interface OvfEnv {
  username: string;
  password?: string;
  hostname: string;
  customData?: Uint8Array;
  /** Undefined when the element is absent (then a password turns password logins on). */
  disableSshPasswordAuthentication?: boolean;
  publicKeys: OvfPublicKey[];
  preprovisionedVm: boolean;
  preprovisionedVmType?: string;
}

/** The file is XML but not Azure's (no ProvisioningSection): another cloud's OVF environment, not an error. */
export class NotAzureOvfEnv extends SourceError {}

/** cloud-init's translate_bool: 'true', '1', 'on', 'yes' in any case are true; anything else false. */
function asBool(text: string | undefined): boolean {
  return ['true', '1', 'on', 'yes'].includes((text ?? '').trim().toLowerCase());
}

function one(parent: XmlElement, name: string, required: true, where: string): XmlElement;
function one(parent: XmlElement, name: string, required: false, where: string): XmlElement | undefined;
function one(parent: XmlElement, name: string, required: boolean, where: string): XmlElement | undefined {
  const found = childrenNamed(parent, WA_NS, name);
  if (found.length > 1)
    throw new SourceError('Azure', `${where}: ${name} appears ${found.length} times; expected once`);
  if (found.length === 0 && required) throw new SourceError('Azure', `${where}: no ${name} element`);
  return found[0];
}

/** The element's text, or undefined when it is absent or empty (ElementTree's None). */
function textOf(parent: XmlElement, name: string, required: boolean, where: string): string | undefined {
  const el = required ? one(parent, name, true, where) : one(parent, name, false, where);
  if (!el) return undefined;
  return el.text === '' ? undefined : el.text;
}

/** Parses ovf-env.xml as cloud-init's OvfEnvXml does: required UserName and HostName, optional everything else. */
export function parseOvfEnv(bytes: Uint8Array, where: string): OvfEnv {
  let root: XmlElement;
  try {
    root = parseXml(Buffer.from(bytes).toString('utf8'), where);
  } catch (err) {
    if (err instanceof XmlError) throw new SourceError('Azure', `invalid ovf-env.xml: ${err.message}`, { cause: err });
    throw err;
  }
  const provisioning = childrenNamed(root, WA_NS, 'ProvisioningSection');
  // cloud-init tests the element's truth, which is false for an element without children too.
  if (provisioning.length === 0 || provisioning.every((p) => p.children.length === 0))
    throw new NotAzureOvfEnv('Azure', `${where} is not Azure's (no ProvisioningSection)`);
  const section = one(root, 'ProvisioningSection', true, where);
  const set = one(section, 'LinuxProvisioningConfigurationSet', true, `${where} ProvisioningSection`);
  const at = `${where} LinuxProvisioningConfigurationSet`;
  const custom = textOf(set, 'CustomData', false, at);
  const username = textOf(set, 'UserName', true, at);
  const hostname = textOf(set, 'HostName', true, at);
  if (username === undefined) throw new SourceError('Azure', `${at}: UserName is empty`);
  if (hostname === undefined) throw new SourceError('Azure', `${at}: HostName is empty`);
  const env: OvfEnv = { username, hostname, publicKeys: [], preprovisionedVm: false };
  const password = textOf(set, 'UserPassword', false, at);
  if (password !== undefined) env.password = password;
  if (custom !== undefined) {
    const compact = custom.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1)
      throw new SourceError('Azure', `${at}: CustomData is not base64`);
    env.customData = new Uint8Array(Buffer.from(compact, 'base64'));
  }
  const disable = one(set, 'DisableSshPasswordAuthentication', false, at);
  if (disable) env.disableSshPasswordAuthentication = asBool(disable.text);
  const ssh = one(set, 'SSH', false, at);
  const keys = ssh ? one(ssh, 'PublicKeys', false, `${at} SSH`) : undefined;
  for (const key of keys ? childrenNamed(keys, WA_NS, 'PublicKey') : []) {
    const k: OvfPublicKey = { value: textOf(key, 'Value', false, `${at} PublicKey`) ?? '' };
    const fingerprint = textOf(key, 'Fingerprint', false, `${at} PublicKey`);
    const path = textOf(key, 'Path', false, `${at} PublicKey`);
    if (fingerprint !== undefined) k.fingerprint = fingerprint;
    if (path !== undefined) k.path = path;
    env.publicKeys.push(k);
  }
  const platform = one(
    one(root, 'PlatformSettingsSection', true, where),
    'PlatformSettings',
    true,
    `${where} PlatformSettingsSection`,
  );
  const pps = one(platform, 'PreprovisionedVm', false, `${where} PlatformSettings`);
  env.preprovisionedVm = pps ? asBool(pps.text) : false;
  const ppsType = textOf(platform, 'PreprovisionedVMType', false, `${where} PlatformSettings`);
  if (ppsType !== undefined) env.preprovisionedVmType = ppsType;
  return env;
}

/**
 * The ovf-env.xml cloud-init writes for walinuxagent when only IMDS answered: user, host name and the password
 * setting, in the namespaces and layout of a real one (values escaped).
 */
export function minimalOvfEnv(username: string, hostname: string, disableSshPassword: boolean): string {
  const esc = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return [
    `<ns0:Environment xmlns:ns0="${OVF_NS}"`,
    ` xmlns:ns1="${WA_NS}"`,
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
    '  <ns1:ProvisioningSection>',
    '    <ns1:Version>1.0</ns1:Version>',
    '    <ns1:LinuxProvisioningConfigurationSet>',
    '      <ns1:ConfigurationSetType>LinuxProvisioningConfiguration',
    '      </ns1:ConfigurationSetType>',
    `      <ns1:UserName>${esc(username)}</ns1:UserName>`,
    `      <ns1:DisableSshPasswordAuthentication>${disableSshPassword ? 'True' : 'False'}`,
    '      </ns1:DisableSshPasswordAuthentication>',
    `      <ns1:HostName>${esc(hostname)}</ns1:HostName>`,
    '    </ns1:LinuxProvisioningConfigurationSet>',
    '  </ns1:ProvisioningSection>',
    '  <ns1:PlatformSettingsSection>',
    '    <ns1:Version>1.0</ns1:Version>',
    '    <ns1:PlatformSettings>',
    '      <ns1:ProvisionGuestAgent>true</ns1:ProvisionGuestAgent>',
    '    </ns1:PlatformSettings>',
    '  </ns1:PlatformSettingsSection>',
    '</ns0:Environment>',
    '',
  ].join('\n');
}

/**
 * TEXT with every UserPassword element's content replaced by REDACTED: the copy kept on disk never holds the password.
 */
export function redactOvfPassword(text: string): string {
  return text.replace(
    /(<((?:[A-Za-z_][\w.-]*:)?UserPassword)(?:\s[^>]*)?>)([\s\S]*?)(<\/\2\s*>)/g,
    (_m, open: string, _n: string, _body: string, close: string) => `${open}${PASSWORD_REDACTION}${close}`,
  );
}
