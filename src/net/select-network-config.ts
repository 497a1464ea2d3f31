// Chooses the network config in cloud-init's order (kernel cmdline, initramfs, system config, datasource, fallback).
import { isObj, type Obj } from './check';
import { convertEniText } from './convert-eni';
import { convertOpenStackNetworkData } from './convert-openstack';
import { fallbackNetworkConfig } from './fallback';
import { initramfsNetworkConfig, kernelCmdlineNetworkConfig } from './initramfs-config';
import type { NetworkState } from './model';
import { NetworkConfigError } from './net-error';
import type { NetworkFormat } from './network-format';
import { parseNetworkInput } from './parse-network-config';
import type { RendererName } from './renderer';
import { macsToNames, type NicFacts } from './sys-class-net';

export type NetworkConfigSource = 'cmdline' | 'initramfs' | 'system_cfg' | 'ds' | 'fallback';

/**
 * The formats net/ reads itself: cloud-init's v1, v2 and ENI, and OpenStack's network_data.json (several sources give
 * it).
 */
export type OwnNetworkFormat = 'v1' | 'v2' | 'eni' | 'openstack';

/** What a datasource gives (InstanceData.networkConfig). */
export interface DatasourceNetwork {
  /** One of net/'s own formats, or the name of a format a datasource registers (`SelectInput.datasourceFormat`). */
  format: OwnNetworkFormat | (string & {});
  config: unknown;
  /**
   * The source's flag for its format (Ec2's apply_full_imds_network_config: false configures the fallback NIC only).
   */
  full?: boolean;
  /** The datasource's own order (Oracle's puts itself before the initramfs); `SelectInput.order` wins over it. */
  order?: Array<Exclude<NetworkConfigSource, 'fallback'>>;
}

export interface SelectInput {
  /** /proc/cmdline (or the kernel command line kiln was told). */
  kernelCmdline: string;
  /** /run/net-*.conf and /run/net6-*.conf from a klibc initramfs: path → text. */
  runNetFiles?: Record<string, string>;
  /** /run/initramfs/open-iscsi.interface exists. */
  openIscsi?: boolean;
  /** The merged system config's `network` key. */
  systemConfig?: unknown;
  datasourceNetwork?: DatasourceNetwork;
  /**
   * The registered format `datasourceNetwork.format` names, when it is not one of net/'s own (the caller looks it up).
   */
  datasourceFormat?: NetworkFormat;
  /** The datasource's order (cloud-init's `network_config_sources`); default cmdline, initramfs, system_cfg, ds. */
  order?: Array<Exclude<NetworkConfigSource, 'fallback'>>;
  /** /sys/class/net facts (readSysClassNet), for the fallback and for naming interfaces by MAC. */
  nics: NicFacts[];
  /** Drivers the fallback ignores (the distro's / datasource's blacklist). */
  blacklistDrivers?: string[];
  /** /var/lib/cloud/data/upgraded-network exists: an upgrade left networking to the image. */
  upgradedNetwork?: boolean;
  /** The renderer the config will be written with, when known (a format's conversion may depend on it). */
  renderer?: RendererName;
}

export type Selection =
  | { disabled: false; source: NetworkConfigSource; config: Obj; state: NetworkState }
  | { disabled: true; source: NetworkConfigSource | 'upgraded-network' | 'none'; reason: string };

export const DEFAULT_ORDER: Array<Exclude<NetworkConfigSource, 'fallback'>> = [
  'cmdline',
  'initramfs',
  'system_cfg',
  'ds',
];

function isDisabled(cfg: unknown): boolean {
  return isObj(cfg) && cfg.config === 'disabled';
}

function present(cfg: unknown): cfg is Obj {
  return isObj(cfg) && Object.keys(cfg).length > 0;
}

const REASONS: Record<NetworkConfigSource, string> = {
  cmdline: 'network-config=disabled on the kernel command line',
  initramfs: 'the initramfs config says disabled',
  system_cfg: 'network: {config: disabled} in the system config',
  ds: 'the datasource says network config is disabled',
  fallback: 'no fallback',
};

/**
 * The chosen config, parsed into the model, or 'disabled' with the reason. A config that is chosen but does not
 * parse throws NetworkConfigError naming the key: the fallback is never applied in its place.
 */
export function selectNetworkConfig(input: SelectInput): Selection {
  if (input.upgradedNetwork)
    return { disabled: true, source: 'upgraded-network', reason: '/var/lib/cloud/data/upgraded-network exists' };
  const macs = macsToNames(input.nics);
  const ds = input.datasourceNetwork;
  const candidates: Record<Exclude<NetworkConfigSource, 'fallback'>, () => { cfg: unknown }> = {
    cmdline: () => ({ cfg: kernelCmdlineNetworkConfig(input.kernelCmdline) }),
    initramfs: () => ({
      cfg: initramfsNetworkConfig(input.runNetFiles ?? {}, input.kernelCmdline, input.openIscsi ?? false, macs),
    }),
    system_cfg: () => ({ cfg: input.systemConfig }),
    ds: () => {
      if (!ds) return { cfg: undefined };
      if (ds.format === 'v1' || ds.format === 'v2') return { cfg: ds.config };
      if (ds.config === undefined || ds.config === null) return { cfg: undefined };
      // Other formats become v1 or v2 first, as cloud-init's datasources do.
      if (ds.format === 'openstack') return { cfg: convertOpenStackNetworkData(ds.config, macs) };
      if (ds.format === 'eni') return { cfg: convertEniText(String(ds.config)) };
      const format = input.datasourceFormat;
      if (format?.name !== ds.format)
        throw new NetworkConfigError(
          'datasource network',
          `no datasource registers the network format ${JSON.stringify(ds.format)}`,
        );
      const ctx = {
        macs,
        nics: input.nics,
        runNetFiles: input.runNetFiles ?? {},
        blacklistDrivers: input.blacklistDrivers ?? [],
        ...(input.renderer ? { renderer: input.renderer } : {}),
        ...(ds.full !== undefined ? { full: ds.full } : {}),
      };
      return { cfg: format.toNetworkConfig(ds.config, ctx) };
    },
  };
  for (const source of input.order ?? ds?.order ?? DEFAULT_ORDER) {
    const { cfg } = candidates[source]();
    if (isDisabled(cfg)) return { disabled: true, source, reason: REASONS[source] };
    if (!present(cfg)) continue;
    const key =
      source === 'system_cfg'
        ? 'system config network'
        : source === 'cmdline'
          ? 'kernel network-config'
          : source === 'initramfs'
            ? 'initramfs'
            : 'datasource network';
    return {
      disabled: false,
      source,
      config: cfg,
      state: parseNetworkInput('yaml', cfg, { macs, key, nics: input.nics }),
    };
  }
  const fb = fallbackNetworkConfig(
    input.nics,
    input.blacklistDrivers ? { blacklistDrivers: input.blacklistDrivers } : {},
  );
  if (!fb)
    return {
      disabled: true,
      source: 'none',
      reason: 'no network config given and no NIC in /sys/class/net qualifies for the DHCP fallback',
    };
  return {
    disabled: false,
    source: 'fallback',
    config: fb,
    state: parseNetworkInput('yaml', fb, { macs, key: 'fallback' }),
  };
}
