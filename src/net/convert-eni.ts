// ENI text (NoCloud's `network-interfaces`) converted to network config v1 the way cloud-init reads it.
import type { Obj } from './check';
import { NetworkConfigError } from './net-error';

const OPTIONS = [
  'address',
  'netmask',
  'broadcast',
  'network',
  'metric',
  'gateway',
  'pointtopoint',
  'media',
  'mtu',
  'hostname',
  'leasehours',
  'leasetime',
  'vendor',
  'client',
  'bootfile',
  'server',
  'hwaddr',
  'provider',
  'frame',
  'netnum',
  'endpoint',
  'local',
  'ttl',
];

interface EniIface {
  auto: boolean;
  family?: string;
  method?: string;
  hwaddress?: string;
  dns?: { nameservers?: string[]; search?: string[] };
  [option: string]: unknown;
}

/** Parses TEXT; `source` lines are not followed (the text arrives alone, with no files around it). */
export function parseEniText(text: string): Map<string, EniIface> {
  const ifaces = new Map<string, EniIface>();
  let current: EniIface | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `network-interfaces line ${i + 1}`;
    const split = line.split(' ');
    const option = split[0] as string;
    const get = (name: string) => ifaces.get(name) ?? (ifaces.set(name, { auto: false }).get(name) as EniIface);
    if (option === 'source' || option === 'source-directory')
      throw new NetworkConfigError(where, `'${option}' cannot be followed in network config given as text`);
    if (option === 'auto') {
      for (const name of split.slice(1)) get(name).auto = true;
      return;
    }
    if (option === 'iface') {
      const [name, family, method] = split.slice(1, 4);
      if (!name || !family || !method) throw new NetworkConfigError(where, "expected 'iface NAME FAMILY METHOD'");
      const entry = get(name);
      if (entry.family !== undefined) throw new NetworkConfigError(where, `interface ${name} can only be defined once`);
      entry.family = family;
      entry.method = method;
      current = entry;
      return;
    }
    if (!current) throw new NetworkConfigError(where, `'${option}' appears before any 'iface' stanza`);
    if (option === 'hwaddress') current.hwaddress = split[1] === 'ether' ? split[2] : split[1];
    else if (OPTIONS.includes(option)) current[option] = split[1];
    else if (option === 'dns-search') current.dns = { ...current.dns, search: split.slice(1) };
    else if (option === 'dns-nameservers') current.dns = { ...current.dns, nameservers: split.slice(1) };
  });
  return ifaces;
}

export function convertEniText(text: string): { version: 1; config: Obj[] } {
  const devs = new Map<string, Obj>();
  for (const [name, data] of parseEniText(text)) {
    const dev = name.split(':')[0] as string;
    if (data.method === undefined) continue;
    let d = devs.get(dev);
    if (!d) {
      d = { type: dev === 'lo' ? 'loopback' : 'physical', name: dev, subnets: [] };
      if (data.hwaddress) d.mac_address = data.hwaddress;
      devs.set(dev, d);
    }
    const subnet: Obj = { type: data.method, control: data.auto ? 'auto' : 'manual' };
    if (data.method === 'static') subnet.address = data.address;
    for (const k of ['netmask', 'gateway', 'broadcast']) if (data[k] !== undefined) subnet[k] = data[k];
    if (data.dns?.nameservers?.length) subnet.dns_nameservers = data.dns.nameservers;
    if (data.dns?.search?.length) subnet.dns_search = data.dns.search;
    (d.subnets as Obj[]).push(subnet);
  }
  return { version: 1, config: [...devs.keys()].sort().map((k) => devs.get(k) as Obj) };
}
