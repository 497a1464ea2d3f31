// What the kernel cmdline (or DMI serial) says about datasources: `ci.ds=`, `ci.datasource=`,
// `ds=nocloud;s=URL;i=ID;h=HOST`.

export interface NoCloudHint {
  /** 'nocloud' or 'nocloud-net'. */
  mode: string;
  seedfrom?: string;
  instanceId?: string;
  localHostname?: string;
  /** An explicit `dsmode=` pair. */
  dsmode?: string;
  /**
   * Every `key=value` pair in order, short keys long (s, i, h), as 25.1's parse_cmdline_data fills the meta-data with
   * them; a key without `=` has the value null (Python's None).
   */
  pairs: ReadonlyArray<readonly [string, string | null]>;
}

/** parse_cmdline_data's short keys and the meta-data keys they stand for. */
const SHORT_KEYS: Readonly<Record<string, string>> = { h: 'local-hostname', i: 'instance-id', s: 'seedfrom' };

/** Splits a cmdline into words, keeping quoted values together. */
export function cmdlineWords(cmdline: string): string[] {
  const words: string[] = [];
  const re = /(?:[^\s"]+|"[^"]*")+/g;
  for (const m of cmdline.matchAll(re)) words.push(m[0].replace(/"/g, ''));
  return words;
}

/** The datasource names forced by `ci.ds=` / `ci.datasource=` (comma-separated), or undefined. */
export function forcedDatasources(cmdline: string): string[] | undefined {
  let found: string[] | undefined;
  for (const w of cmdlineWords(cmdline)) {
    const m = /^ci\.(?:ds|datasource)=(.+)$/.exec(w);
    if (m?.[1])
      found = m[1]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
  }
  return found;
}

/**
 * Parses `ds=nocloud[-net][;key=value…]` from TEXT (a cmdline or a DMI serial): every pair, and by name
 * s/seedfrom, i/instance-id, h/local-hostname, dsmode.
 */
export function noCloudHint(text: string): NoCloudHint | undefined {
  for (const w of cmdlineWords(text)) {
    const m = /^(?:ds|ci\.ds)=(nocloud(?:-net)?)(?:[;,](.*))?$/i.exec(w);
    if (!m) continue;
    const pairs: Array<readonly [string, string | null]> = [];
    for (const item of (m[2] ?? '').split(';')) {
      if (item === '') continue;
      const eq = item.indexOf('=');
      const key = eq < 0 ? item : item.slice(0, eq);
      pairs.push([SHORT_KEYS[key] ?? key, eq < 0 ? null : item.slice(eq + 1)]);
    }
    const hint: NoCloudHint = { mode: (m[1] as string).toLowerCase(), pairs };
    for (const [k, v] of pairs) {
      if (v === null) continue;
      if (k === 'seedfrom') hint.seedfrom = v;
      else if (k === 'instance-id') hint.instanceId = v;
      else if (k === 'local-hostname') hint.localHostname = v;
      else if (k === 'dsmode') hint.dsmode = v;
    }
    return hint;
  }
  return undefined;
}

/**
 * cloud-init 25.1's load_cmdline_data: an explicit `dsmode=` wins; else a seed's scheme says it (http, https, ftp,
 * ftps: net; file:// or a path: local; any other: none, so the seed's or the default decides); without a seed
 * `ds=nocloud` means local and `ds=nocloud-net` net. (22.4 took the mode from the id even with a seed.)
 */
export function noCloudHintDsmode(hint: Pick<NoCloudHint, 'mode' | 'seedfrom' | 'dsmode'>): string | undefined {
  if (hint.dsmode !== undefined) return hint.dsmode;
  if (hint.seedfrom) {
    if (/^(https?|ftps?):\/\//.test(hint.seedfrom)) return 'net';
    if (hint.seedfrom.startsWith('file://') || hint.seedfrom.startsWith('/')) return 'local';
    return undefined;
  }
  return hint.mode === 'nocloud' ? 'local' : 'net';
}
