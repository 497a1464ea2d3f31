// sysconfig's /etc/resolv.conf and NetworkManager drop-in: the name servers and search domains of every subnet,
// every interface and the global config, merged into the resolv.conf already in the root as cloud-init 25.1 does.
import type { NetworkState } from '../model';

const RESOLV_HEADER = '; Created by cloud-init automatically, do not edit.\n;';

/** The DNS of NS in cloud-init's order: per interface its subnets' then its own, then the global config; no repeats. */
export function collectDns(ns: NetworkState): { nameservers: string[]; search: string[] } {
  const nameservers: string[] = [];
  const search: string[] = [];
  const addNew = (to: string[], from: readonly string[]) => {
    for (const v of from) if (!to.includes(v)) to.push(v);
  };
  for (const iface of ns.interfaces.values()) {
    for (const s of iface.subnets) {
      nameservers.push(...(s.dns_nameservers ?? []));
      search.push(...(s.dns_search ?? []));
    }
    if (iface.dns) {
      addNew(nameservers, iface.dns.nameservers);
      addNew(search, iface.dns.search);
    }
  }
  addNew(nameservers, ns.dns.nameservers);
  addNew(search, ns.dns.search);
  return { nameservers, search };
}

/** Whether any DNS is configured at all (then NetworkManager must leave resolv.conf alone). */
export function hasAnyDns(ns: NetworkState): boolean {
  if (ns.dns.nameservers.length || ns.dns.search.length) return true;
  return [...ns.interfaces.values()].some(
    (i) =>
      i.subnets.some((s) => s.dns_nameservers !== undefined || s.dns_search !== undefined) ||
      (i.dns !== undefined && (i.dns.nameservers.length > 0 || i.dns.search.length > 0)),
  );
}

type Line = { option: string; value: string; comment: string } | { text: string };

/**
 * /etc/resolv.conf for NS on top of EXISTING: its lines kept, its name servers first; when a server (or domain) is
 * added, all `nameserver` (or `search`) lines move to the end as one list. Undefined when NS has no DNS at all.
 */
export function renderResolvConf(ns: NetworkState, existing = ''): string | undefined {
  const dns = collectDns(ns);
  if (!dns.nameservers.length && !dns.search.length) return undefined;
  const lines: Line[] = existing.split('\n').map((text) => {
    const cut = text.search(/[;#]/);
    const head = cut < 0 ? text : text.slice(0, cut);
    const m = /^\s*(\S+)\s+(.*)$/s.exec(head);
    if (!m) return { text: text.trim() === '' ? '' : text };
    return { option: m[1] as string, value: m[2] as string, comment: cut < 0 ? '' : text.slice(cut) };
  });
  if (existing === '' || existing.endsWith('\n')) lines.pop();
  const values = (option: string) => lines.flatMap((l) => ('option' in l && l.option === option ? [l.value] : []));
  const replace = (option: string, next: string[]) => {
    const kept = lines.filter((l) => !('option' in l && l.option === option));
    lines.splice(0, lines.length, ...kept, ...next.map((value) => ({ option, value, comment: '' })));
  };
  // As cloud-init: a value counts as added when the de-duplicated list grew past the current one's length.
  for (const n of dns.nameservers) {
    const current = values('nameserver');
    const next = [...new Set([...current, n])];
    if (next.length !== current.length) replace('nameserver', next);
  }
  for (const d of dns.search) {
    const current = values('search').flatMap((v) => v.split(/\s+/).filter(Boolean));
    const next = [...new Set([...current, d])];
    if (next.length !== current.length) replace('search', [next.join(' ')]);
  }
  const out = lines.map((l) => ('option' in l ? `${l.option} ${l.value}${l.comment}\n` : `${l.text}\n`)).join('');
  return out.startsWith(RESOLV_HEADER) ? out : `${RESOLV_HEADER}\n${out}`;
}
