// One entry point from any supported input (v1, v2, network_data.json, ENI text, a registered format) to the model.
import { isObj, obj } from './check';
import { convertEniText } from './convert-eni';
import { convertOpenStackNetworkData } from './convert-openstack';
import type { NetworkState } from './model';
import { NetworkConfigError } from './net-error';
import type { NetworkFormat } from './network-format';
import { parseV1 } from './parse-v1';
import { parseV2 } from './parse-v2';
import type { RendererName } from './renderer';

/** net/'s own input kinds; a cloud's format comes as the NetworkFormat its datasource registers. */
export type InputKind = 'v1' | 'v2' | 'yaml' | 'openstack' | 'eni';

export interface ParseOptions {
  /** MAC (lower case) → interface name on this machine: names OpenStack links, a format's NICs, and v2 matches. */
  macs?: Map<string, string>;
  /** Where the config came from, for messages (e.g. 'network' or 'network_data.json'; a format's file name). */
  key?: string;
  /** The machine's NICs, at boot: v2 `match` by name glob or driver then names real devices. */
  nics?: Array<{ name: string; mac?: string; driver?: string }>;
  /** The renderer the state is for (a format's conversion may depend on it). */
  renderer?: RendererName;
}

/**
 * A v1 or v2 document: accepts `{network: {version …}}` or `{version …}` and dispatches on the version.
 * v1's `config: disabled` must be handled by the caller (selection), not here.
 */
export function parseNetworkDocument(doc: unknown, opts: ParseOptions = {}): NetworkState {
  let key = opts.key ?? 'network';
  let d = obj(doc, key);
  if ('network' in d && isObj(d.network)) {
    d = d.network;
    key = `${key === 'network' ? '' : `${key}.`}network`;
  }
  const version = d.version;
  if (version === 1 || version === '1') {
    // cloud-init reads `config` and passes over anything else beside it.
    const state = parseV1(d.config, `${key}.config`);
    for (const k of Object.keys(d))
      if (k !== 'version' && k !== 'config')
        state.warnings.push(`${key}.${k}: unknown key in a version 1 config, ignored (known: version, config)`);
    return state;
  }
  if (version === 2 || version === '2')
    return parseV2(d, key, {
      ...(opts.macs ? { interfacesByMac: opts.macs } : {}),
      ...(opts.nics ? { nics: opts.nics } : {}),
    });
  throw new NetworkConfigError(`${key}.version`, `expected 1 or 2, got ${JSON.stringify(version ?? null)}`);
}

/** Parses INPUT of KIND (one of net/'s own, or a registered format) into the model. */
export function parseNetworkInput(
  kind: InputKind | NetworkFormat,
  input: unknown,
  opts: ParseOptions = {},
): NetworkState {
  if (typeof kind !== 'string') {
    const ctx = {
      macs: opts.macs ?? new Map<string, string>(),
      nics: [],
      runNetFiles: {},
      blacklistDrivers: [],
      ...(opts.renderer ? { renderer: opts.renderer } : {}),
      ...(opts.key ? { key: opts.key } : {}),
    };
    const key = kind.documentKey ?? kind.name;
    return parseNetworkDocument(kind.toNetworkConfig(input, ctx) ?? {}, {
      key,
      ...(opts.macs ? { macs: opts.macs } : {}),
    });
  }
  switch (kind) {
    case 'v1':
    case 'v2':
    case 'yaml':
      return parseNetworkDocument(input, opts);
    case 'openstack':
      return parseV1(convertOpenStackNetworkData(input, opts.macs ?? new Map()).config, 'network_data.json');
    case 'eni':
      return parseV1(convertEniText(String(input)).config, 'network-interfaces');
  }
}
