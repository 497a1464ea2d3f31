// cloudbase-init's VMwareGuestInfoService: guestinfo through [vmwareguestinfo] vmware_rpctool_path, read by
// cloudbase-guestinfo.ts.
import type { CloudbaseMetadataService } from '../cloudbase-metadata-service';
import { CLOUDBASE_SERVICES_PACKAGE } from '../cloudbase-metadata-service';
import { sourceSettings } from '../settings';
import { crawlCloudbaseGuestinfo, hasCloudbaseGuestinfo } from './cloudbase-guestinfo';

const NAME = 'VMware';

export const cloudbaseGuestinfoService: CloudbaseMetadataService = {
  classPath: `${CLOUDBASE_SERVICES_PACKAGE}vmwareguestinfoservice.VMwareGuestInfoService`,
  datasource: NAME,
  kind: 'local',
  settings: (conf) => {
    const tool = conf.str('vmware_rpctool_path', 'vmwareguestinfo');
    return { settings: tool === undefined ? {} : { vmware_rpctool_path: tool } };
  },
  detect: (ctx) => hasCloudbaseGuestinfo(ctx, sourceSettings(ctx.config, NAME)),
  crawl: (ctx) => crawlCloudbaseGuestinfo(ctx),
};
