// The routing tables as cloud-init's netinfo reads them: `ip -o route list` (IPv4, main table) and
// `ip --oneline -6 route list table all`, token by token as its _netdev_route_info_iproute does.

/** One route; an IPv6 one may lack keys cloud-init's table then fails on, so every field is optional there. */
export type RouteEntry = Partial<Record<'destination' | 'gateway' | 'genmask' | 'iface' | 'flags' | 'metric', string>>;

export interface RouteInfo {
  ipv4: RouteEntry[];
  ipv6: RouteEntry[];
}

function ipv4Mask(prefix: string): string {
  const n = Number(prefix);
  const bits = n <= 0 ? 0 : n >= 32 ? 0xffffffff : (0xffffffff << (32 - n)) >>> 0;
  return [24, 16, 8, 0].map((s) => (bits >>> s) & 255).join('.');
}

/** The token after I, or the IndexError Python raises at the end of the list. */
function next(toks: string[], i: number): string {
  const t = toks[i + 1];
  if (t === undefined) throw new RangeError('list index out of range');
  return t;
}

/** `ip -o route list` lines as cloud-init reads them. */
export function parseIpv4Routes(text: string): RouteEntry[] {
  const out: RouteEntry[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line) continue;
    const toks = line.split(/\s+/).filter(Boolean);
    const e: RouteEntry = { destination: '', flags: '', gateway: '', genmask: '', iface: '', metric: '' };
    const flags = ['U'];
    if (toks[0] === 'default') {
      e.destination = '0.0.0.0';
      e.genmask = '0.0.0.0';
    } else {
      let addr = toks[0] ?? '';
      let cidr = '32';
      if (addr.includes('/')) [addr, cidr] = addr.split('/') as [string, string];
      else flags.push('H');
      e.destination = addr;
      e.genmask = ipv4Mask(cidr);
      e.gateway = '0.0.0.0';
    }
    toks.forEach((t, i) => {
      if (t === 'via') {
        e.gateway = next(toks, i);
        flags.splice(1, 0, 'G');
      }
      if (t === 'dev') e.iface = next(toks, i);
      if (t === 'metric') e.metric = next(toks, i);
    });
    e.flags = flags.join('');
    out.push(e);
  }
  return out;
}

/** `ip --oneline -6 route list table all` lines as cloud-init reads them (local, multicast … lines included). */
export function parseIpv6Routes(text: string): RouteEntry[] {
  const out: RouteEntry[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line) continue;
    const toks = line.split(/\s+/).filter(Boolean);
    const e: RouteEntry = {};
    if (toks[0] === 'default') {
      e.destination = '::/0';
      e.flags = 'UG';
    } else {
      e.destination = toks[0] ?? '';
      e.gateway = '::';
      e.flags = 'U';
    }
    toks.forEach((t, i) => {
      if (t === 'via') {
        e.gateway = next(toks, i);
        e.flags = 'UG';
      }
      if (t === 'dev') e.iface = next(toks, i);
      if (t === 'metric') e.metric = next(toks, i);
      if (t === 'expires') e.flags = `${e.flags ?? ''}e`;
    });
    out.push(e);
  }
  return out;
}
