// A cloudbase-init metadata service (the Windows face): named by its class path, registered next to its cloud's source
// and reading through that cloud's readers.
import type { CloudbaseConf } from '../config/cloudbase-init-conf';
import type { NetAdapter } from '../platform/windows/windows-system';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';

/** The package every cloudbase-init metadata service class lives in. */
export const CLOUDBASE_SERVICES_PACKAGE = 'cloudbaseinit.metadata.services.';

/** What one service's detect and crawl get from cloudbase-init.conf: its settings, and the base URL it reads below. */
export interface ServiceSettings {
  settings: Record<string, unknown>;
  baseUrl?: string;
}

export interface CloudbaseMetadataService {
  /**
   * cloudbase-init's class path, as `metadata_services` lists it
   * (`cloudbaseinit.metadata.services.ovfservice.OvfService`).
   */
  classPath: string;
  /**
   * The kiln datasource of its cloud (cloud-init's name): the runner looks it up among its sources (a build
   * without that cloud skips the service) and hands it to detect and crawl; the plugins see it as the found service's.
   */
  datasource: string;
  /** 'local' when load() finds a drive or a tool, 'network' when it is a request; default its datasource's kind. */
  kind?: 'local' | 'network';
  /**
   * The conf section whose `add_metadata_private_ip_route` asks for a route to its `metadata_base_url` host
   * before load() (cloudbase-init's HttpService, EC2Service and CloudStack); none for the others.
   */
  routeSection?: string;
  /**
   * Its options from cloudbase-init.conf; ADAPTERS lists the network adapters (for the services that ask DHCP servers).
   */
  settings(conf: CloudbaseConf, adapters: () => NetAdapter[]): ServiceSettings;
  /**
   * load()'s first half: whether its data is there (a drive, a tool); the settings are in ctx.config's
   * datasource.<datasource>.
   */
  detect(ctx: DetectContext, source: Datasource): Promise<boolean>;
  /** load()'s second half and the reads: the instance, or a SourceError naming what was wrong. */
  crawl(ctx: CrawlContext, source: Datasource): Promise<InstanceData>;
}

/**
 * A service whose cloudbase-init behaviour is its cloud's datasource as cloud-init has it, given SETTINGS from the
 * conf.
 */
export function sourceService(
  classPath: string,
  datasource: string,
  more: Partial<Pick<CloudbaseMetadataService, 'settings' | 'routeSection'>> = {},
): CloudbaseMetadataService {
  return {
    classPath: `${CLOUDBASE_SERVICES_PACKAGE}${classPath}`,
    datasource,
    settings: () => ({ settings: {} }),
    ...more,
    detect: (ctx, source) => source.detect(ctx),
    crawl: (ctx, source) => source.crawl(ctx),
  };
}

/** HttpService's and EC2Service's settings: [SECTION] metadata_base_url, when set, as the server root. */
export function metadataBaseUrlSettings(section: string): (conf: CloudbaseConf) => ServiceSettings {
  return (conf) =>
    conf.isSet('metadata_base_url', section)
      ? { settings: {}, baseUrl: conf.str('metadata_base_url', section) as string }
      : { settings: {} };
}
