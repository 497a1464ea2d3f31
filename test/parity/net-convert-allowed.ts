// Where kiln's renderers deliberately differ from cloud-init 25.1's net-convert, each entry with its reason. An
// entry names the case, renderer and file and rewrites cloud-init's file into what kiln writes, so any other
// difference still fails; the parity test fails on an entry that excused nothing.
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { NETWORK_FILE_HEADER } from '../../src/net/distro-renderer-configs';
import type { RendererName } from '../../src/net/renderer';
import type { DebianSuite } from '../helpers/debian-rootfs';

export interface AllowedRenderDifference {
  /** The oracle whose output it excuses: trixie's cloud-init 25.1 or bookworm's 22.4. */
  oracle: DebianSuite;
  /** A case name, or '*' for any case. */
  case: string;
  renderer: RendererName;
  path: string;
  why: string;
  fix(cloudInit: string): string;
}

type Yaml = Record<string, unknown>;

/** Rewrites every device of the SECTIONS of a netplan file with EDIT (the file read and written as YAML). */
function eachNetplanDevice(text: string, sections: readonly string[], edit: (device: Yaml) => void): string {
  const doc = parseYaml(text, { version: '1.1', merge: true }) as {
    network?: Record<string, Record<string, Yaml> | undefined>;
  };
  for (const section of sections) for (const device of Object.values(doc.network?.[section] ?? {})) edit(device);
  return stringifyYaml(doc, { version: '1.1' });
}

const NETPLAN_FILE = '/etc/netplan/50-cloud-init.yaml';

/** The bond and bridge parameters netplan's emitter writes as strings (its parser keeps them as text). */
const NETPLAN_TEXT_PARAMETERS = [
  'mii-monitor-interval',
  'up-delay',
  'down-delay',
  'arp-interval',
  'learn-packet-interval',
  'ageing-time',
  'forward-delay',
  'hello-time',
  'max-age',
];

export const ALLOWED_RENDER_DIFFERENCES: AllowedRenderDifference[] = [
  // 25.1 on Debian 13 writes netplan's file through netplan's Python API (netplan_api_write_yaml_file), which
  // re-emits it in netplan's own form. kiln writes the file itself, as 25.1 does without python3-netplan
  // (fallback_write_netplan_yaml): the same configuration, which netplan reads the same. Where netplan's emitter
  // changes the YAML, these entries undo it. They come before the header entry: they re-emit the YAML.
  {
    oracle: 'trixie',
    case: '*',
    renderer: 'netplan',
    path: NETPLAN_FILE,
    why: "netplan's emitter lists a bond's or bridge's member interfaces in an order of its own (it keeps each membership on the member, not a list); kiln keeps cloud-init's order (sorted for v1, as given for v2, which the fixtures give sorted): members are a set to netplan",
    fix: (t) => eachNetplanDevice(t, ['bonds', 'bridges'], (d) => Array.isArray(d.interfaces) && d.interfaces.sort()),
  },
  {
    oracle: 'trixie',
    case: 'v2-optional-accept-ra',
    renderer: 'netplan',
    path: NETPLAN_FILE,
    why: "netplan's emitter leaves out `optional: false`, its default; kiln passes the v2 input through as cloud-init renders it",
    fix: (t) => eachNetplanDevice(t, ['ethernets'], (d) => d.optional === undefined && (d.optional = false)),
  },
  {
    oracle: 'trixie',
    case: '*',
    renderer: 'netplan',
    path: NETPLAN_FILE,
    why: "netplan's emitter writes bond and bridge timing parameters (mii-monitor-interval, forward-delay, …) as quoted strings; kiln writes cloud-init's numbers, which netplan reads the same",
    fix: (t) =>
      eachNetplanDevice(t, ['bonds', 'bridges'], (d) => {
        const params = d.parameters as Yaml | undefined;
        for (const k of NETPLAN_TEXT_PARAMETERS)
          if (params && typeof params[k] === 'string' && /^\d+$/.test(params[k])) params[k] = Number(params[k]);
      }),
  },
  {
    oracle: 'trixie',
    case: 'v2-wifi-dhcp-overrides',
    renderer: 'netplan',
    path: NETPLAN_FILE,
    why: "netplan's parser turns an access point's bare `password` into `auth: {key-management: psk, password}`, which its emitter writes; kiln passes the v2 input through as cloud-init renders it",
    fix: (t) =>
      eachNetplanDevice(t, ['wifis'], (d) => {
        for (const ap of Object.values((d['access-points'] as Record<string, Yaml> | undefined) ?? {})) {
          const auth = ap.auth as Yaml | undefined;
          if (auth?.['key-management'] !== 'psk' || Object.keys(auth).length !== 2) continue;
          delete ap.auth;
          ap.password = auth.password;
        }
      }),
  },
  {
    oracle: 'trixie',
    case: '*',
    renderer: 'netplan',
    path: NETPLAN_FILE,
    why: "netplan's emitter drops comments; kiln keeps the header cloud-init puts first on Debian (netplan_header), which 25.1's own writer keeps too: it tells whoever opens the file that it is generated and how to switch that off",
    fix: (t) => NETWORK_FILE_HEADER + t,
  },
  {
    oracle: 'trixie',
    case: '*',
    renderer: 'eni',
    path: '/etc/network/interfaces.d/50-cloud-init',
    why: "25.1 (as 22.4) writes a v2 interface's DNS dict as a Python repr (`dns {'nameservers': …}`, eni.py's _iface_add_attrs passes the interface's `dns` key through), a line ifupdown cannot read; kiln leaves it out (the dns-nameservers/dns-search lines carry it)",
    fix: (t) => t.replace(/^ {4}dns \{.*\n/gm, ''),
  },
];

/**
 * cloud-init's TEXT of PATH as ORACLE wrote it, with every entry for the case and renderer applied; USED collects
 * the entries that changed it.
 */
export function applyAllowed(
  oracle: DebianSuite,
  caseName: string,
  renderer: RendererName,
  path: string,
  text: string,
  used: Set<number>,
): string {
  let want = text;
  ALLOWED_RENDER_DIFFERENCES.forEach((a, i) => {
    if (a.oracle !== oracle || (a.case !== caseName && a.case !== '*') || a.renderer !== renderer || a.path !== path)
      return;
    const fixed = a.fix(want);
    if (fixed !== want) used.add(i);
    want = fixed;
  });
  return want;
}
