// A cloud's own network format, as net/ sees it: a name and a conversion to a v1 or v2 document. The formats are
// registered by their datasources (sources/); net/ knows only cloud-init's own (v1, v2, ENI, network_data.json).
import type { Obj } from './check';
import type { RendererName } from './renderer';
import type { NicFacts } from './sys-class-net';

/** What a conversion may look at besides the config itself: the machine's NICs and the run's facts. */
export interface NetworkFormatContext {
  /** MAC (lower case) → interface name on this machine. */
  macs: Map<string, string>;
  /** The machine's NICs (/sys/class/net), empty when unknown (devel net-convert). */
  nics: NicFacts[];
  /** /run/net-*.conf and /run/net6-*.conf from a klibc initramfs: path → text. */
  runNetFiles: Record<string, string>;
  /** Drivers the fallback ignores (the distro's / datasource's blacklist). */
  blacklistDrivers: string[];
  /** The renderer the config will be written with, when known. */
  renderer?: RendererName;
  /** The source's `full` flag (InstanceData.networkConfig.full), when it set one. */
  full?: boolean;
  /** Where the config came from, for messages (a file name), when the format reads text of its own. */
  key?: string;
}

/** One cloud's network format: InstanceData.networkConfig.format names it, the source that gives it registers it. */
export interface NetworkFormat {
  /** The name InstanceData.networkConfig.format carries (and obj.json keeps). */
  readonly name: string;
  /** The key messages about the converted document name it by; the format's name when unset. */
  readonly documentKey?: string;
  /** CONFIG as the source gave it, as a v1 (`{version: 1, config}`) or v2 document; undefined when it gives nothing. */
  toNetworkConfig(config: unknown, ctx: NetworkFormatContext): Obj | undefined;
}
