// The contract every datasource implements, and the one shape they all normalise to.
import type { FilesystemFinder, FileTree } from '../devices/filesystem-finder';
import type { NetworkFormat } from '../net/network-format';
import type { OwnNetworkFormat } from '../net/select-network-config';
import type { Log } from '../util/log';
import type { Platform } from '../platform/platform';
import type { WindowsSystem } from '../platform/windows/windows-system';
import type { EphemeralNetwork } from '../net/ephemeral/ephemeral-network';
import type { MockService } from './mock-service';

/** What every source normalises to; the runner writes instance-data.json from it. */
export interface InstanceData {
  instanceId: string;
  /** cloud-init's cloud_name: 'nocloud', 'openstack', 'aws', 'none' … */
  cloudName: string;
  /** cloud-init's platform: 'nocloud', 'openstack', 'ec2', 'none' … */
  platform: string;
  /**
   * cloud-init's subplatform: 'seed-dir (/var/lib/cloud/seed/nocloud)', 'config-disk (/dev/sr0)', 'metadata
   * (http://…)'.
   */
  subplatform: string;
  localHostname?: string;
  /**
   * The domain the FQDN takes when the host name has none (cloud-init's DataSourceCloudStack.get_hostname appends
   * its DHCP lease's domain name); only a source that does so sets it.
   */
  fqdnDomain?: string;
  region?: string;
  availabilityZone?: string;
  publicKeys: string[];
  userData?: Uint8Array;
  vendorData?: Uint8Array;
  /** vendor_data2.json (OpenStack) and the like, processed after vendorData. */
  vendorData2?: Uint8Array;
  /**
   * Parsed network config as the source gives it; `format` says how to read `config`: one of net/'s own, or the
   * name of the format the source registers (`Datasource.networkFormat`; a name, as obj.json keeps it).
   */
  networkConfig?: {
    format: OwnNetworkFormat | (string & {});
    config: unknown;
    full?: boolean;
    /**
     * The source's own order of network config sources (cloud-init's `network_config_sources`), when not the default.
     */
    order?: Array<'cmdline' | 'initramfs' | 'system_cfg' | 'ds'>;
  };
  adminPassword?: string;
  certificates?: string[];
  /** PKCS#12 server certificates for the certificate stores (cloudbase-init's get_server_certs; Azure's goal state). */
  serverCertificates?: Array<{
    storeLocation: 'LocalMachine' | 'CurrentUser';
    storeName: string;
    pfx: Uint8Array;
    password?: string;
  }>;
  /** Config the source contributes below vendor data (cloud-init's datasource config, e.g. Ec2's). */
  sourceConfig?: Record<string, unknown>;
  /** Extra files the source delivers (OpenStack `files`/content): absolute path → bytes. */
  files?: Array<{ path: string; content: Uint8Array }>;
  /** The raw metadata tree, for instance-data.json (`ds.meta_data`) and jinja. */
  metadata: Record<string, unknown>;
  /** Anything else under `ds` in instance-data.json (e.g. `ec2_metadata`, `dynamic`). */
  extra?: Record<string, unknown>;
  /**
   * cloud-init's `_crawled_metadata`: when a source sets it (Ec2: `meta-data`, `dynamic`, `_metadata_api_version`;
   * LXD: its raw crawl), instance-data.json's `ds` is this block as crawled, instead of `meta_data` plus `extra`.
   */
  crawledMetadata?: Record<string, unknown>;
  /**
   * Paths in instance-data.json ('ds/meta_data/random_seed') whose value is base64 of bytes the source read as bytes
   * (cloud-init's base64_encoded_keys: it writes bytes that way and lists where).
   */
  base64EncodedKeys?: string[];
  /**
   * Keys this source's instance-data.json hides from non-root readers, beside the common ones (cloud-init's per-source
   * sensitive_metadata_keys).
   */
  sensitiveKeys?: string[];
}

export interface DetectContext {
  platform: Platform;
  log: Log;
  /** /proc/cmdline text of the target. */
  kernelCmdline: string;
  /**
   * DMI fields from /sys/class/dmi/id (product_name, sys_vendor, product_uuid, chassis_asset_tag, product_serial …).
   */
  dmi: Record<string, string>;
  /** Merged system config (datasource_list, datasource: {<Name>: {...}}). */
  config: Record<string, unknown>;
  finder: FilesystemFinder;
  /**
   * kiln's environment: proxy variables for non-link-local URLs (a NoCloud seedfrom on the internet; link-local
   * never uses them) and VMware's VMX_GUESTINFO_* variables. Unset: none.
   */
  env?: NodeJS.ProcessEnv;
  /** The Windows system (registry, drives, DHCP leases), given by the cloudbase-init runner; unset on Linux. */
  windows?: WindowsSystem;
}

export interface CrawlContext extends DetectContext {
  /** This source's settings: config.datasource[<Name>], or {}. */
  settings: Record<string, unknown>;
  /** Base URL override (tests point sources at a mock server on 127.0.0.1). */
  baseUrl?: string;
  /** Aborted when the stage's total wait budget runs out. */
  signal?: AbortSignal;
  /** 'local' in init-local (no network configured yet), 'network' in init; unset means the network is usable. */
  stage?: 'local' | 'network';
  /** Set when the network is not up yet (init-local): network reads happen inside a lease from it. */
  network?: EphemeralNetwork;
}

/** One public host key as cloud-init's get_public_host_keys gives it: the type and the base64 blob. */
export interface HostKey {
  type: string;
  value: string;
}

/** What publishing host keys back to the cloud needs: this source's settings (config.datasource[<Name>]). */
export interface PublishContext {
  log: Log;
  settings: Record<string, unknown>;
  signal?: AbortSignal;
}

/** What a found source's setup needs in the init stage (cloud-init's DataSource.setup): its settings, the target. */
export interface SetupContext {
  platform: Platform;
  log: Log;
  settings: Record<string, unknown>;
  signal?: AbortSignal;
}

/** What cloud-init's DataSource.activate gets: the running system and its distro's name (cloud-init's distro.name). */
export interface ActivateContext {
  platform: Platform;
  log: Log;
  distroName: string;
  isNewInstance: boolean;
  /**
   * Clears per-instance module NAME's semaphore, so that it runs again this boot (cloud-init's
   * FileSemaphores.clear on the instance's sem folder; Exoscale's set_passwords).
   */
  rerunModule(name: string): Promise<void>;
  /** The system config (cloud-init's sys_cfg): its reporting handlers and def_log_file, say. */
  systemConfig?: Record<string, unknown>;
}

export interface Datasource {
  /** cloud-init's name: 'NoCloud', 'ConfigDrive', 'OpenStack', 'Ec2', 'None'. */
  readonly name: string;
  /** Local sources run in the init-local stage, before networking; network ones in the init stage. */
  readonly kind: 'local' | 'network';
  /**
   * cloud-init's class name in each stage, where it is not `<name>` (the `DataSource` prefix left out): Ec2's is
   * Ec2Local in init-local, Ec2 in init; a source cloud-init registers once has one class whichever stage finds it.
   */
  readonly classNames?: { readonly local: string; readonly network: string };
  /**
   * str(datasource) as cloud-init writes it in status.json and the `datasource` files, for a source whose class
   * has its own __str__; CLS is the class name ('DataSourceNoCloud'). Without it: the class name alone.
   */
  describe?(data: InstanceData, cls: string): string;
  /**
   * The cloud's own network format, when its network config is in one (not v1, v2, ENI or network_data.json):
   * the network step finds it by the name InstanceData.networkConfig.format carries.
   */
  readonly networkFormat?: NetworkFormat;
  /**
   * Lines the hotplug udev rule gets after its ACTION test (cloud-init's extra_hotplug_udev_rules: Ec2 hands only
   * its own NIC drivers to the hook), each ending in a newline.
   */
  readonly hotplugUdevRules?: string;
  /**
   * How `kiln devel serve-metadata --kind WORD` stands in for this cloud's metadata service in tests and CI: the
   * word, the transport and the answers by the cloud's own rules (sources/mock-service.ts). Test tooling, never used at
   * boot.
   */
  readonly mock?: MockService;
  /** Cheap: DMI, labels, files, kernel cmdline. No cloud round-trips. */
  detect(ctx: DetectContext): Promise<boolean>;
  /**
   * Network sources that cloud-init also runs as a `*Local` source (Ec2Local, OpenStackLocal): true when local
   * facts alone (DMI) say this cloud is here, so init-local may crawl it inside a temporary DHCP lease. A
   * source configured only by URL, or allowed by `strict_id: false`, has no such evidence.
   */
  localEvidence?(ctx: DetectContext): Promise<boolean>;
  /** Reads everything; throws SourceError with a clear reason. */
  crawl(ctx: CrawlContext): Promise<InstanceData>;
  /** cloud-init's publish_host_keys (the ssh module's ssh_publish_hostkeys): sources without it publish nothing. */
  publishHostKeys?(ctx: PublishContext, data: InstanceData, keys: HostKey[]): Promise<void>;
  /**
   * cloud-init's setup(is_new_instance), on every boot in the init stage once the network config is written and
   * before user data is processed (VMware adds the host's addresses): the instance data to use from then on,
   * or undefined when unchanged. A failure is logged; the boot goes on with the data as found.
   */
  setup?(ctx: SetupContext, data: InstanceData, isNewInstance: boolean): Promise<InstanceData | undefined>;
  /**
   * cloud-init's activate: run on every boot in the init stage after the data is consumed, before the init
   * modules (RbxCloud's gratuitous ARP; Exoscale's set_passwords made to run again).
   */
  activate?(ctx: ActivateContext, data: InstanceData): Promise<void>;
}

export type { FileTree };
