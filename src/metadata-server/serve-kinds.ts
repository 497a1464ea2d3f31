// The clouds `devel serve-metadata` can stand in for: each source's registered mock (sources/mock-service.ts), in the
// registry's order. The one list its --kind choices, usage, help and flag checks are derived from; none is written
// here.
import type { HttpMockService, MockService, SerialMockService } from '../sources/mock-service';
import { DATASOURCES, WINDOWS_ONLY_SOURCES } from '../sources/registry';

export type ServeKind = MockService;

/** Every kind served, in the registry's order (the Linux sources, then the Windows-only ones). */
export const SERVE_KINDS: readonly ServeKind[] = [...DATASOURCES, ...WINDOWS_ONLY_SOURCES].flatMap((s) =>
  s.mock ? [s.mock] : [],
);

/** A kind the metadata server (metadata-server.ts) answers, over HTTP on an address or a unix socket. */
export type MetadataKind = string;

/** A kind a serial host (serial-hosts.ts) answers. */
export type SerialHostKind = string;

/** KIND's entry, or undefined when no cloud is served by that name. */
export function serveKind(kind: string): ServeKind | undefined {
  return SERVE_KINDS.find((k) => k.kind === kind);
}

/** KIND's entry when it is served over HTTP; an error naming the HTTP kinds otherwise. */
export function httpServeKind(kind: string): HttpMockService {
  const found = serveKind(kind);
  if (!found || found.transport === 'serial')
    throw new Error(
      `no HTTP metadata service of kind '${kind}'; one of ${kindsWhere((k) => k.transport !== 'serial')
        .map((k) => k.kind)
        .join(', ')}`,
    );
  return found;
}

/** KIND's entry when it is a serial host; an error naming the serial kinds otherwise. */
export function serialServeKind(kind: string): SerialMockService {
  const found = serveKind(kind);
  if (found?.transport !== 'serial')
    throw new Error(
      `no serial metadata host of kind '${kind}'; one of ${kindsWhere((k) => k.transport === 'serial')
        .map((k) => k.kind)
        .join(', ')}`,
    );
  return found;
}

/** The entries that pass TEST, in the list's order. */
export function kindsWhere(test: (k: ServeKind) => boolean): ServeKind[] {
  return SERVE_KINDS.filter(test);
}

/** WORDS as a sentence says them: 'a, b or c' (CONJUNCTION 'and': 'a, b and c'). */
export function wordList(words: readonly string[], conjunction: 'or' | 'and' = 'or'): string {
  return words.length < 2
    ? words.join('')
    : `${words.slice(0, -1).join(', ')} ${conjunction} ${words[words.length - 1]}`;
}

/**
 * The kinds as the command's summary lists them: each with its note, neighbours that share a note joined with
 * 'and' before it ('a and b on a unix socket').
 */
export function describedKinds(): string {
  const noteOf = (k: ServeKind) =>
    k.note ?? (k.transport === 'http' ? (k.passwordServer ? 'with a password server' : '') : 'on a unix socket');
  const groups: Array<{ kinds: string[]; note: string }> = [];
  for (const k of SERVE_KINDS) {
    const last = groups[groups.length - 1];
    const note = noteOf(k);
    if (last && note && last.note === note) last.kinds.push(k.kind);
    else groups.push({ kinds: [k.kind], note });
  }
  return groups.map((g) => `${g.kinds.join(' and ')}${g.note ? ` ${g.note}` : ''}`).join(', ');
}
