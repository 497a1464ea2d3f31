// One entry point from any supported input (v1, v2, network_data.json, EC2 IMDS, ENI text) to the model.
import { isObj, obj } from './check';
import { convertEc2Network } from './convert-ec2';
import { convertEniText } from './convert-eni';
import { convertOpenStackNetworkData } from './convert-openstack';
import { convertVmwareImcNetwork } from './convert-vmware-imc';
import { readCustSpec } from '../config/vmware-cust-cfg';
import type { NetworkState } from './model';
import { NetworkConfigError } from './net-error';
import { parseV1 } from './parse-v1';
import { parseV2 } from './parse-v2';
import type { RendererName } from './renderer';

export type InputKind = 'v1' | 'v2' | 'yaml' | 'openstack' | 'ec2' | 'eni' | 'vmware-imc';

export interface ParseOptions {
  /** MAC (lower case) → interface name on this machine: names OpenStack links and EC2 NICs, and v2 matches. */
  macs?: Map<string, string>;
  /** Where the config came from, for messages (e.g. 'network' or 'network_data.json'). */
  key?: string;
  /** The machine's NICs, at boot: v2 `match` by name glob or driver then names real devices. */
  nics?: Array<{ name: string; mac?: string; driver?: string }>;
  /** The renderer the state is for: EC2's conversion adds source routing for netplan only, as cloud-init 25.1. */
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
    for (const k of Object.keys(d)) if (k !== 'version' && k !== 'config') state.warnings.push(`${key}.${k}: unknown key in a version 1 config, ignored (known: version, config)`);
    return state;
  }
  if (version === 2 || version === '2') return parseV2(d, key, { ...(opts.macs ? { interfacesByMac: opts.macs } : {}), ...(opts.nics ? { nics: opts.nics } : {}) });
  throw new NetworkConfigError(`${key}.version`, `expected 1 or 2, got ${JSON.stringify(version ?? null)}`);
}

/** Parses INPUT of KIND into the model. */
export function parseNetworkInput(kind: InputKind, input: unknown, opts: ParseOptions = {}): NetworkState {
  switch (kind) {
    case 'v1':
    case 'v2':
    case 'yaml':
      return parseNetworkDocument(input, opts);
    case 'openstack':
      return parseV1(convertOpenStackNetworkData(input, opts.macs ?? new Map()).config, 'network_data.json');
    case 'ec2':
      return parseV2(convertEc2Network(input, opts.macs ?? new Map(), { policyRouting: opts.renderer === 'netplan' }), 'ec2', opts.macs ? { interfacesByMac: opts.macs } : {});
    case 'eni':
      return parseV1(convertEniText(String(input)).config, 'network-interfaces');
    case 'vmware-imc':
      // cust.cfg text; NICs are named by their section (NIC1 …) unless MACS names them, as net-convert does.
      return parseV2(convertVmwareImcNetwork(readCustSpec(String(input), opts.key ?? 'cust.cfg'), opts.macs?.size ? opts.macs : undefined), 'cust.cfg');
  }
}
