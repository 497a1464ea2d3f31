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
}

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
 * Parses `ds=nocloud[-net][;key=value…]` from TEXT (a cmdline or a DMI serial); keys s/seedfrom, i/instance-id,
 * h/local-hostname, dsmode.
 */
export function noCloudHint(text: string): NoCloudHint | undefined {
  for (const w of cmdlineWords(text)) {
    const m = /^(?:ds|ci\.ds)=(nocloud(?:-net)?)(?:[;,](.*))?$/i.exec(w);
    if (!m) continue;
    const hint: NoCloudHint = { mode: (m[1] as string).toLowerCase() };
    for (const pair of (m[2] ?? '').split(';')) {
      const eq = pair.indexOf('=');
      if (eq < 0) continue;
      const k = pair.slice(0, eq);
      const v = pair.slice(eq + 1);
      if (k === 's' || k === 'seedfrom') hint.seedfrom = v;
      else if (k === 'i' || k === 'instance-id') hint.instanceId = v;
      else if (k === 'h' || k === 'local-hostname') hint.localHostname = v;
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
export function noCloudHintDsmode(hint: NoCloudHint): string | undefined {
  if (hint.dsmode !== undefined) return hint.dsmode;
  if (hint.seedfrom) {
    if (/^(https?|ftps?):\/\//.test(hint.seedfrom)) return 'net';
    if (hint.seedfrom.startsWith('file://') || hint.seedfrom.startsWith('/')) return 'local';
    return undefined;
  }
  return hint.mode === 'nocloud' ? 'local' : 'net';
}
