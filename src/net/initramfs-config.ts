// Network config from the initramfs (klibc ipconfig's /run/net-*.conf) and from the kernel's `network-config=`.
import { readYaml, YamlError } from '../config/read-yaml';
import type { Obj } from './check';
import { NetworkConfigError } from './net-error';
import { zlib } from '../util/on-demand-builtins';
import { describeError } from '../util/errors';

/** Shell-style KEY='value' lines, as klibc writes them. */
function loadShellVars(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    let v = (m[2] as string).trim();
    if ((v.startsWith("'") && v.endsWith("'")) || (v.startsWith('"') && v.endsWith('"'))) v = v.slice(1, -1);
    out[m[1] as string] = v;
  }
  return out;
}

/** One /run/net-*.conf file as a v1 physical entry. */
export function klibcToConfigEntry(text: string, file: string, macs: Map<string, string>): Obj {
  const d = loadShellVars(text);
  const name = d.DEVICE ?? d.DEVICE6;
  if (!name) throw new NetworkConfigError(file, "no 'DEVICE' or 'DEVICE6' entry");
  let proto = d.PROTO ?? d.IPV6PROTO;
  if (!proto) proto = d.filename ? 'dhcp' : 'none';
  if (!['none', 'dhcp', 'dhcp6'].includes(proto))
    throw new NetworkConfigError(`${file}: PROTO`, `unexpected value '${proto}'`);
  const iface: Obj = { type: 'physical', name, subnets: [] };
  const mac = [...macs.entries()].find(([, n]) => n === name)?.[0];
  if (mac) iface.mac_address = mac;
  for (const pre of ['IPV4', 'IPV6']) {
    if (d[`${pre}ADDR`] === undefined) continue;
    let cur = d[`${pre}PROTO`] ?? proto;
    if (cur === 'none') cur = 'static';
    const subnet: Obj = { type: cur, control: 'manual' };
    if (cur === 'static') subnet.address = d[`${pre}ADDR`];
    for (const key of ['NETMASK', 'BROADCAST', 'GATEWAY'])
      if (d[`${pre}${key}`] !== undefined) subnet[key.toLowerCase()] = d[`${pre}${key}`];
    const dns = ['DNS0', 'DNS1']
      .map((k) => d[`${pre}${k}`])
      .filter((v): v is string => !!v && v.replace(/^[:.0]+|[:.0]+$/g, '').length > 0);
    if (dns.length) {
      subnet.dns_nameservers = dns;
      const search = d.DOMAINSEARCH;
      if (search) subnet.dns_search = search.includes(',') ? search.split(',') : search.split(/\s+/);
    }
    (iface.subnets as Obj[]).push(subnet);
  }
  return iface;
}

/**
 * v1 config from klibc files ({path: text}) when they apply: files exist and `ip=`/`ip6=` is on the kernel
 * command line or an open-iscsi interface file is present.
 */
export function initramfsNetworkConfig(
  files: Record<string, string>,
  kernelCmdline: string,
  openIscsi: boolean,
  macs: Map<string, string>,
): Obj | undefined {
  const paths = Object.keys(files);
  if (paths.length === 0) return undefined;
  const applies = kernelCmdline.split(/\s+/).some((t) => t.startsWith('ip=') || t.startsWith('ip6=')) || openIscsi;
  if (!applies) return undefined;
  const entries: Obj[] = [];
  const byName = new Map<string, { entry: Obj; files: string[] }>();
  for (const path of paths) {
    const entry = klibcToConfigEntry(files[path] as string, path, macs);
    const prev = byName.get(entry.name as string);
    if (prev) {
      if (prev.entry.mac_address !== entry.mac_address)
        throw new NetworkConfigError(
          path,
          `device '${String(entry.name)}' is also defined in ${prev.files.join(' ')} with another MAC`,
        );
      (prev.entry.subnets as Obj[]).push(...(entry.subnets as Obj[]));
      prev.files.push(path);
    } else {
      byName.set(entry.name as string, { entry, files: [path] });
      entries.push(entry);
    }
  }
  return { config: entries, version: 1 };
}

/** `network-config=` from the kernel command line: 'disabled', or base64 (optionally gzip) YAML. */
export function kernelCmdlineNetworkConfig(cmdline: string): Obj | undefined {
  let data: string | undefined;
  for (const tok of cmdline.split(/\s+/))
    if (tok.startsWith('network-config=')) data = tok.slice('network-config='.length);
  if (!data) return undefined;
  if (data === 'disabled') return { config: 'disabled' };
  if (!/^[A-Za-z0-9+/=_-]+$/.test(data))
    throw new NetworkConfigError('kernel command line network-config=', 'not base64');
  let blob: Buffer = Buffer.from(data, 'base64');
  if (blob[0] === 0x1f && blob[1] === 0x8b) blob = zlib().gunzipSync(blob);
  let doc: unknown;
  try {
    doc = readYaml(blob.toString('utf8'), 'network-config=');
  } catch (err) {
    throw new NetworkConfigError(
      'kernel command line network-config=',
      `not YAML after decoding: ${err instanceof YamlError ? err.detail : describeError(err)}`,
    );
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new NetworkConfigError('kernel command line network-config=', 'does not decode to a mapping');
  return doc as Obj;
}
