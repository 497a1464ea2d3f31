// Reads VMware's guest customization spec (the `cust.cfg` INI file of an IMC package) into typed fields, as
// cloud-init's imc/config.py reads it.
import { ConfigError } from '../util/errors';
import { parseIni } from './ini-file';

/** One NIC of the spec: its `[NICn]` section. */
export interface CustNic {
  /** The section name (`NIC1`), which cloud-init's net-convert also uses as the interface name. */
  name: string;
  /** Lower case, as cloud-init compares it. */
  mac: string;
  primary: boolean;
  onboot: boolean;
  /** `BOOTPROTO` lower-cased: 'dhcp', 'static' or ''. */
  bootProto: string;
  /** `IPv4_MODE` lower-cased: 'backwards_compatible', 'static', 'dhcp', 'disabled', 'as_is' or ''. */
  ipv4Mode: string;
  ipv4?: { address?: string; netmask?: string; gateways?: string[] };
  ipv6: Array<{ address?: string; netmask?: string; gateway?: string }>;
}

export interface CustSpec {
  hostName?: string;
  domainName?: string;
  timezone?: string;
  utc?: string;
  /** `[PASSWORD] -PASS`: base64 text as the spec carries it. A secret: never log it. */
  adminPassword?: string;
  resetPassword: boolean;
  nameServers: string[];
  dnsSuffixes: string[];
  nics: CustNic[];
  markerId?: string;
  customScriptName?: string;
  /** `[CLOUDINIT] METADATA` / `USERDATA`: file names beside cust.cfg (raw cloud-init data customisation). */
  metaDataName?: string;
  userDataName?: string;
  /** Every `SECTION|key` → value, as cloud-init's ConfigFile holds them. */
  raw: Map<string, string>;
}

/**
 * cust.cfg's values as cloud-init's ConfigFile holds them: `SECTION|key` → value (a key set twice is an error, as
 * configparser's).
 */
export function parseCustCfgIni(text: string, file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [section, values] of parseIni(text, file, new Map(), { duplicates: 'error' }))
    for (const [key, v] of values) out.set(`${section}|${key}`, v.value);
  return out;
}

function yesNo(raw: Map<string, string>, key: string, file: string): boolean {
  const v = (raw.get(key) ?? 'no').toLowerCase();
  if (v !== 'yes' && v !== 'no')
    throw new ConfigError(`${file}: ${key.replace('|', ' ')} must be yes or no, not '${raw.get(key)}'`);
  return v === 'yes';
}

const truthy = (v: string | undefined): boolean => v !== undefined && ['yes', 'true'].includes(v.toLowerCase());

/** The values of KEY_PREFIX1, KEY_PREFIX2 … as cloud-init counts them (every key with the prefix), each required. */
function numbered(raw: Map<string, string>, prefix: string, file: string): string[] {
  const count = [...raw.keys()].filter((k) => k.startsWith(prefix)).length;
  const out: string[] = [];
  for (let i = 1; i <= count; i++) {
    const v = raw.get(`${prefix}${i}`);
    if (v === undefined)
      throw new ConfigError(
        `${file}: ${prefix.replace(/\|/g, ' ').trim()} entries are not numbered 1..${count}: ${prefix}${i} is missing`,
      );
    out.push(v);
  }
  return out;
}

function readNic(raw: Map<string, string>, name: string, file: string): CustNic {
  const get = (what: string) => raw.get(`${name}|${what}`);
  const mac = get('MACADDR');
  if (!mac) throw new ConfigError(`${file}: [${name}] has no MACADDR`);
  const nic: CustNic = {
    name,
    mac: mac.toLowerCase(),
    primary: truthy(get('PRIMARY')),
    onboot: truthy(get('ONBOOT')),
    bootProto: (get('BOOTPROTO') ?? '').toLowerCase(),
    ipv4Mode: (get('IPv4_MODE') ?? '').toLowerCase(),
    ipv6: [],
  };
  if (nic.bootProto === 'static') {
    const gateway = get('GATEWAY');
    nic.ipv4 = {
      ...(get('IPADDR') ? { address: get('IPADDR') as string } : {}),
      ...(get('NETMASK') ? { netmask: get('NETMASK') as string } : {}),
      ...(gateway ? { gateways: gateway.split(',').map((g) => g.trim()) } : {}),
    };
  }
  const count = [...raw.keys()].filter((k) => k.startsWith(`${name}|IPv6ADDR|`)).length;
  for (let i = 1; i <= count; i++) {
    const address = get(`IPv6ADDR|${i}`);
    const netmask = get(`IPv6NETMASK|${i}`);
    const gateway = get(`IPv6GATEWAY|${i}`);
    nic.ipv6.push({
      ...(address ? { address } : {}),
      ...(netmask ? { netmask } : {}),
      ...(gateway ? { gateway } : {}),
    });
  }
  return nic;
}

/** cust.cfg text → the spec. FILE names it in errors. */
export function readCustSpec(text: string, file = 'cust.cfg'): CustSpec {
  const raw = parseCustCfgIni(text, file);
  const nicList = raw.get('NIC-CONFIG|NICS');
  // cloud-init splits on ',' without trimming; kiln trims, so 'NIC1, NIC2' names NIC2 rather than failing.
  const nicNames = nicList === undefined || nicList.trim() === '' ? [] : nicList.split(',').map((n) => n.trim());
  const opt = (key: string) => raw.get(key);
  const spec: CustSpec = {
    resetPassword: yesNo(raw, 'PASSWORD|RESET', file),
    nameServers: numbered(raw, 'DNS|NAMESERVER|', file),
    dnsSuffixes: numbered(raw, 'DNS|SUFFIX|', file),
    nics: nicNames.map((n) => readNic(raw, n, file)),
    raw,
  };
  const fields: Array<[keyof CustSpec, string]> = [
    ['hostName', 'NETWORK|HOSTNAME'],
    ['domainName', 'NETWORK|DOMAINNAME'],
    ['timezone', 'DATETIME|TIMEZONE'],
    ['utc', 'DATETIME|UTC'],
    ['adminPassword', 'PASSWORD|-PASS'],
    ['markerId', 'MISC|MARKER-ID'],
    ['customScriptName', 'CUSTOM-SCRIPT|SCRIPT-NAME'],
    ['metaDataName', 'CLOUDINIT|METADATA'],
    ['userDataName', 'CLOUDINIT|USERDATA'],
  ];
  for (const [field, key] of fields) {
    const v = opt(key);
    if (v !== undefined && v !== '') (spec as unknown as Record<string, unknown>)[field] = v;
  }
  return spec;
}
