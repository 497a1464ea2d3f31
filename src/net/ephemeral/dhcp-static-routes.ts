// DHCP option 121 (RFC 3442 classless static routes) as DHCP clients report it, and the routes a temporary lease
// installs, as cloud-init's EphemeralIPv4Network does.

/** One classless static route: DESTINATION ('a.b.c.d/n') through GATEWAY ('0.0.0.0' = on-link). */
export interface StaticRoute {
  destination: string;
  gateway: string;
}

/**
 * cloud-init's parse_static_routes: dhclient's `rfc3442-classless-static-routes 32,169,254,169,254,10,0,0,1`
 * (every octet, comma-separated) or dhcpcd's `24.191.168.128 192.168.128.1,0 192.168.128.1`. Each route is a
 * prefix length, its significant destination octets, then four gateway octets. Parsing stops at the first
 * malformed route and keeps the routes before it (`problems` says why), as cloud-init does.
 */
export function parseRfc3442Routes(text: string, problems: string[] = []): StaticRoute[] {
  const tokens = text
    .replace(/;+\s*$/, '')
    .split(/[, .]/)
    .filter((t) => t !== '');
  const routes: StaticRoute[] = [];
  for (let i = 0; i < tokens.length; ) {
    const tok = tokens[i] as string;
    const len = /^\d+$/.test(tok) ? Number(tok) : NaN;
    if (!(len >= 0 && len <= 32)) {
      problems.push(`invalid prefix length '${tok}' in the classless static routes '${text}'`);
      return routes;
    }
    const significant = Math.ceil(len / 8);
    const needed = 1 + significant + 4;
    if (tokens.length - i < needed) {
      problems.push(
        `the classless static routes '${text}' end inside a /${len} route (it needs ${needed} octets, ${tokens.length - i} remain)`,
      );
      return routes;
    }
    const octets = tokens.slice(i + 1, i + needed);
    if (octets.some((o) => !/^\d+$/.test(o) || Number(o) > 255)) {
      problems.push(`a non-octet in the classless static routes '${text}'`);
      return routes;
    }
    const dest = [...octets.slice(0, significant), '0', '0', '0', '0'].slice(0, 4).join('.');
    routes.push({ destination: `${dest}/${len}`, gateway: octets.slice(significant).join('.') });
    i += needed;
  }
  return routes;
}

/**
 * dhclient's form of an option it has no name for (`unknown-121 20:a9:fe:a9:fe:a:c7:0:1`): hex octets, read as RFC 3442
 * bytes.
 */
export function parseHexRfc3442Routes(hex: string, problems: string[] = []): StaticRoute[] {
  const parts = hex.trim().split(':');
  if (!parts.every((p) => /^[0-9a-f]{1,2}$/i.test(p))) {
    problems.push(`option 121 '${hex}' is not colon-separated hex`);
    return [];
  }
  return parseRfc3442Routes(parts.map((p) => String(parseInt(p, 16))).join(','), problems);
}

/** busybox udhcpc's `$staticroutes`: 'a.b.c.d/n gateway' pairs separated by spaces. */
export function parseUdhcpcStaticRoutes(text: string, problems: string[] = []): StaticRoute[] {
  const words = text
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  const routes: StaticRoute[] = [];
  for (let i = 0; i + 1 < words.length; i += 2) {
    const destination = words[i] as string;
    const gateway = words[i + 1] as string;
    if (!/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(destination) || !/^\d{1,3}(\.\d{1,3}){3}$/.test(gateway)) {
      problems.push(`udhcpc's staticroutes '${text}' has a malformed route '${destination} ${gateway}'`);
      return routes;
    }
    routes.push({ destination, gateway });
  }
  if (words.length % 2 === 1)
    problems.push(`udhcpc's staticroutes '${text}' ends with a destination without a gateway`);
  return routes;
}

/** One route to add with `ip`, and the command that removes it again. */
export interface RouteStep {
  add: string[];
  undo: string[];
}

/**
 * With classless static routes, only they are installed (RFC 3442: the client MUST ignore the Router option
 * then), with `ip route append` so that two routes to one destination both go in; a gateway of 0.0.0.0 is
 * on-link. Without them, ROUTER: an on-link host route to it first (it may lie outside the leased subnet, as
 * with a /32 lease), then the default route through it. Undo the steps that succeeded in reverse order.
 */
export function leaseRouteSteps(
  nic: string,
  address: string,
  router: string | undefined,
  staticRoutes: readonly StaticRoute[],
): RouteStep[] {
  if (staticRoutes.length > 0) {
    return staticRoutes.map((r) => {
      const via = r.gateway === '0.0.0.0' ? [] : ['via', r.gateway];
      return {
        add: ['ip', '-4', 'route', 'append', r.destination, ...via, 'dev', nic],
        undo: ['ip', '-4', 'route', 'del', r.destination, ...via, 'dev', nic],
      };
    });
  }
  if (!router) return [];
  return [
    {
      add: ['ip', '-4', 'route', 'add', router, 'dev', nic, 'src', address],
      undo: ['ip', '-4', 'route', 'del', router, 'dev', nic, 'src', address],
    },
    {
      add: ['ip', '-4', 'route', 'add', 'default', 'via', router, 'dev', nic],
      undo: ['ip', '-4', 'route', 'del', 'default', 'dev', nic],
    },
  ];
}
