// cloudbase-init's OpenNebulaService: context.sh on any CD-ROM holding it, read by opennebula-cloudbase.ts.
import type { CloudbaseMetadataService } from '../cloudbase-metadata-service';
import { CLOUDBASE_SERVICES_PACKAGE } from '../cloudbase-metadata-service';
import { crawlCloudbaseOpenNebula, detectCloudbaseOpenNebula } from './opennebula-cloudbase';

export const cloudbaseOpenNebulaService: CloudbaseMetadataService = {
  classPath: `${CLOUDBASE_SERVICES_PACKAGE}opennebulaservice.OpenNebulaService`,
  datasource: 'OpenNebula',
  kind: 'local',
  settings: () => ({ settings: {} }),
  detect: (ctx) => detectCloudbaseOpenNebula(ctx),
  crawl: (ctx) => crawlCloudbaseOpenNebula(ctx),
};
