// The shape every network renderer has: the model in, the files to write (paths inside the target root) out.
import type { NetworkState } from './model';

export interface RenderedFile {
  /** Absolute path inside the target root. */
  path: string;
  content: string;
  mode?: number;
  /** `user:group` that should own the file when that user exists in the target (networkd's systemd-network). */
  owner?: string;
}

export type RendererName = 'eni' | 'netplan' | 'networkd' | 'sysconfig' | 'network-manager';

/** Per-renderer settings a distro gives (cloud-init's `renderer_configs`). */
export interface RendererConfig {
  eniPath?: string;
  netplanPath?: string;
  /** Text put before the rendered content (netplan, ENI). */
  header?: string;
  /** udev rules naming interfaces by MAC; undefined for none. */
  netrulesPath?: string;
  /** sysconfig: 'rhel' or 'suse'. */
  flavor?: 'rhel' | 'suse';
  /** sysconfig: the control file (`/etc/sysconfig/network`). */
  control?: string;
  /** sysconfig: `{base}`/`{name}` templates for ifcfg and route files. */
  ifaceTemplate?: string;
  routeTemplates?: { ipv4: string; ipv6: string };
  /** netplan features to assume (cloud-init asks `netplan info`; net-convert fixes them). */
  features?: string[];
  /**
   * networkd: write .netdev files for bonds, bridges and VLANs and attach their members (default true; cloud-init 22.4
   * does not).
   */
  networkdNetdevs?: boolean;
  /** sysconfig: the resolv.conf already in the root; its other lines are kept, its name servers come first. */
  existingResolvConf?: string | undefined;
  /** sysconfig: the control file already in the root; its lines that are not the renderer's own settings are kept. */
  existingControl?: string | undefined;
}

export interface NetworkRenderer {
  readonly name: RendererName;
  render(ns: NetworkState, cfg: RendererConfig): RenderedFile[];
}
