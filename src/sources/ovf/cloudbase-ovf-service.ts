// cloudbase-init's OvfService: the OVF environment on a drive labelled [ovf] drive_label, read by cloudbase-ovf.ts.
import type { CloudbaseMetadataService } from '../cloudbase-metadata-service';
import { CLOUDBASE_SERVICES_PACKAGE } from '../cloudbase-metadata-service';
import { sourceSettings } from '../settings';
import { crawlCloudbaseOvf, detectCloudbaseOvf } from './cloudbase-ovf';

const NAME = 'OVF';
const OPTIONS = ['config_file_name', 'drive_label', 'ns'];

export const cloudbaseOvfService: CloudbaseMetadataService = {
  classPath: `${CLOUDBASE_SERVICES_PACKAGE}ovfservice.OvfService`,
  datasource: NAME,
  kind: 'local',
  settings: (conf) => ({
    settings: Object.fromEntries(OPTIONS.map((k) => [k, conf.str(k, 'ovf')]).filter(([, v]) => v !== undefined)),
  }),
  detect: (ctx) => detectCloudbaseOvf(ctx, sourceSettings(ctx.config, NAME)),
  crawl: (ctx) => crawlCloudbaseOvf(ctx),
};
