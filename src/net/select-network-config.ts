// Chooses the network config in cloud-init's order (kernel cmdline, initramfs, system config, datasource, fallback).
import { isObj, type Obj } from './check';
import { convertDigitalOceanNetwork } from './convert-digitalocean';
import { convertEc2Network } from './convert-ec2';
import { convertEniText } from './convert-eni';
import { convertHetznerNetwork } from './convert-hetzner';
import { convertOpenStackNetworkData } from './convert-openstack';
import { convertOracleNetwork } from './convert-oracle';
import { convertUpCloudNetwork } from './convert-upcloud';
import { convertVultrNetwork } from './convert-vultr';
import { candidateNics, fallbackNetworkConfig } from './fallback';
import { initramfsNetworkConfig, kernelCmdlineNetworkConfig } from './initramfs-config';
import type { NetworkState } from './model';
import { parseNetworkInput } from './parse-network-config';
import type { RendererName } from './renderer';
import { macsToNames, type NicFacts } from './sys-class-net';

export type NetworkConfigSource = 'cmdline' | 'initramfs' | 'system_cfg' | 'ds' | 'fallback';

/** What a datasource gives (InstanceData.networkConfig). */
export interface DatasourceNetwork {
  format: 'v1' | 'v2' | 'openstack' | 'ec2' | 'eni' | 'digitalocean' | 'hetzner' | 'oracle' | 'vultr' | 'upcloud';
  config: unknown;
  /** Ec2's apply_full_imds_network_config: false configures the fallback NIC only (DHCP), as cloud-init does. */
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
  /** The datasource's order (cloud-init's `network_config_sources`); default cmdline, initramfs, system_cfg, ds. */
  order?: Array<Exclude<NetworkConfigSource, 'fallback'>>;
  /** /sys/class/net facts (readSysClassNet), for the fallback and for naming interfaces by MAC. */
  nics: NicFacts[];
  /** Drivers the fallback ignores (the distro's / datasource's blacklist). */
  blacklistDrivers?: string[];
  /** /var/lib/cloud/data/upgraded-network exists: an upgrade left networking to the image. */
  upgradedNetwork?: boolean;
  /** The renderer the config will be written with, when known: EC2's conversion adds source routing for netplan. */
  renderer?: RendererName;
}

export type Selection =
  | { disabled: false; source: NetworkConfigSource; config: Obj; state: NetworkState }
  | { disabled: true; source: NetworkConfigSource | 'upgraded-network' | 'none'; reason: string };

export const DEFAULT_ORDER: Array<Exclude<NetworkConfigSource, 'fallback'>> = ['cmdline', 'initramfs', 'system_cfg', 'ds'];

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
  if (input.upgradedNetwork) return { disabled: true, source: 'upgraded-network', reason: '/var/lib/cloud/data/upgraded-network exists' };
  const macs = macsToNames(input.nics);
  const ds = input.datasourceNetwork;
  const candidates: Record<Exclude<NetworkConfigSource, 'fallback'>, () => { cfg: unknown }> = {
    cmdline: () => ({ cfg: kernelCmdlineNetworkConfig(input.kernelCmdline) }),
    initramfs: () => ({ cfg: initramfsNetworkConfig(input.runNetFiles ?? {}, input.kernelCmdline, input.openIscsi ?? false, macs) }),
    system_cfg: () => ({ cfg: input.systemConfig }),
    ds: () => {
      if (!ds) return { cfg: undefined };
      if (ds.format === 'v1' || ds.format === 'v2') return { cfg: ds.config };
      if (ds.config === undefined || ds.config === null) return { cfg: undefined };
      // Provider formats become v1 (OpenStack, ENI) or v2 (EC2) first, as cloud-init's datasources do.
      if (ds.format === 'openstack') return { cfg: convertOpenStackNetworkData(ds.config, macs) };
      if (ds.format === 'ec2') {
        const primary = candidateNics(input.nics, input.blacklistDrivers ?? [])[0];
        return { cfg: convertEc2Network(ds.config, macs, ds.full === false ? { full: false, ...(primary ? { primary } : {}) } : { policyRouting: input.renderer === 'netplan' }) };
      }
      if (ds.format === 'digitalocean') return { cfg: convertDigitalOceanNetwork(ds.config, macs) };
      if (ds.format === 'hetzner') return { cfg: convertHetznerNetwork(ds.config, macs) };
      if (ds.format === 'vultr') return { cfg: convertVultrNetwork(ds.config, macs) };
      if (ds.format === 'upcloud') return { cfg: convertUpCloudNetwork(ds.config, macs) };
      if (ds.format === 'oracle') return { cfg: convertOracleNetwork(ds.config, input.nics, input.runNetFiles ?? {}) };
      return { cfg: convertEniText(String(ds.config)) };
    },
  };
  for (const source of input.order ?? ds?.order ?? DEFAULT_ORDER) {
    const { cfg } = candidates[source]();
    if (isDisabled(cfg)) return { disabled: true, source, reason: REASONS[source] };
    if (!present(cfg)) continue;
    const key = source === 'system_cfg' ? 'system config network' : source === 'cmdline' ? 'kernel network-config' : source === 'initramfs' ? 'initramfs' : 'datasource network';
    return { disabled: false, source, config: cfg, state: parseNetworkInput('yaml', cfg, { macs, key, nics: input.nics }) };
  }
  const fb = fallbackNetworkConfig(input.nics, input.blacklistDrivers ? { blacklistDrivers: input.blacklistDrivers } : {});
  if (!fb) return { disabled: true, source: 'none', reason: 'no network config given and no NIC in /sys/class/net qualifies for the DHCP fallback' };
  return { disabled: false, source: 'fallback', config: fb, state: parseNetworkInput('yaml', fb, { macs, key: 'fallback' }) };
}
