// The clouds `devel serve-metadata` can stand in for, in the order its usage lists them: the one list its --kind
// choices, usage, help and flag checks are derived from, and the server's MetadataKind.

export interface ServeKind {
  /** The --kind word. */
  readonly kind: string;
  /**
   * How the guest reaches it: 'http' (the metadata server on an address), 'http-socket' (the metadata server on
   * a unix socket: LXD's /dev/lxd/sock) or 'serial' (a line protocol on a unix socket standing in for a serial
   * port or zone socket: serial-hosts.ts).
   */
  readonly transport: 'http' | 'http-socket' | 'serial';
  /** The cloud also has a password server on a port of its own (--password-port; 8080 on CloudStack's virtual router). */
  readonly passwordServer?: true;
  /** What the summary says of it beyond its transport. */
  readonly note?: string;
  /** Where the guest looks for the socket, for --socket's help (a root's path). */
  readonly socketHint?: string;
}

export const SERVE_KINDS = [
  { kind: 'openstack', transport: 'http' },
  { kind: 'ec2', transport: 'http', note: 'with IMDSv2' },
  { kind: 'gce', transport: 'http' },
  { kind: 'nocloud', transport: 'http' },
  { kind: 'azure', transport: 'http' },
  { kind: 'lxd', transport: 'http-socket', socketHint: 'ROOT/dev/lxd/sock' },
  { kind: 'digitalocean', transport: 'http' },
  { kind: 'hetzner', transport: 'http' },
  { kind: 'oracle', transport: 'http' },
  { kind: 'scaleway', transport: 'http' },
  { kind: 'vultr', transport: 'http' },
  { kind: 'upcloud', transport: 'http' },
  { kind: 'akamai', transport: 'http' },
  { kind: 'maas', transport: 'http' },
  { kind: 'cloudcix', transport: 'http' },
  { kind: 'nwcs', transport: 'http' },
  { kind: 'packet', transport: 'http' },
  { kind: 'cloudstack', transport: 'http', passwordServer: true },
  { kind: 'exoscale', transport: 'http', passwordServer: true },
  { kind: 'aliyun', transport: 'http' },
  { kind: 'bigstep', transport: 'http' },
  { kind: 'smartos', transport: 'serial', socketHint: 'ROOT/native/.zonecontrol/metadata.sock' },
  { kind: 'cloudsigma', transport: 'serial' },
] as const satisfies readonly ServeKind[];

type Entry = (typeof SERVE_KINDS)[number];

/** A kind the metadata server (metadata-server.ts) answers, over HTTP on an address or a unix socket. */
export type MetadataKind = Exclude<Entry, { transport: 'serial' }>['kind'];

/** A kind a serial host (serial-hosts.ts) answers. */
export type SerialHostKind = Extract<Entry, { transport: 'serial' }>['kind'];

/** KIND's entry, or undefined when no cloud is served by that name. */
export function serveKind(kind: string): ServeKind | undefined {
  return (SERVE_KINDS as readonly ServeKind[]).find((k) => k.kind === kind);
}

/** The entries that pass TEST, in the list's order. */
export function kindsWhere(test: (k: ServeKind) => boolean): ServeKind[] {
  return (SERVE_KINDS as readonly ServeKind[]).filter(test);
}

/** WORDS as a sentence says them: 'a, b or c' (CONJUNCTION 'and': 'a, b and c'). */
export function wordList(words: readonly string[], conjunction: 'or' | 'and' = 'or'): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${conjunction} ${words[words.length - 1]}`;
}

/**
 * The kinds as the command's summary lists them: each with its note, neighbours that share a note joined with
 * 'and' before it ('cloudstack and exoscale with their password server').
 */
export function describedKinds(): string {
  const noteOf = (k: ServeKind) => k.note ?? (k.transport === 'http' ? (k.passwordServer ? 'with their password server' : '') : 'on a unix socket');
  const groups: Array<{ kinds: string[]; note: string }> = [];
  for (const k of SERVE_KINDS as readonly ServeKind[]) {
    const last = groups[groups.length - 1];
    const note = noteOf(k);
    if (last && note && last.note === note) last.kinds.push(k.kind);
    else groups.push({ kinds: [k.kind], note });
  }
  return groups.map((g) => `${g.kinds.join(' and ')}${g.note ? ` ${g.note}` : ''}`).join(', ');
}
