// cloudbase-init's AzureService: the wireserver's 2015-04-05 protocol and the provisioning drive, read by
// cloudbase-azure.ts.
import type { CloudbaseMetadataService } from '../cloudbase-metadata-service';
import { CLOUDBASE_SERVICES_PACKAGE } from '../cloudbase-metadata-service';
import { crawlCloudbaseAzure } from './cloudbase-azure';

export const cloudbaseAzureService: CloudbaseMetadataService = {
  classPath: `${CLOUDBASE_SERVICES_PACKAGE}azureservice.AzureService`,
  datasource: 'Azure',
  kind: 'network',
  // The [azure] options, the retries every cloudbase-init HTTP service has, and kiln's [azure] wireserver_url
  // (no cloudbase-init option: for a wireserver not given by DHCP, or a test's mock).
  settings: (conf) => {
    const wireserver = conf.str('wireserver_url', 'azure');
    return {
      settings: {
        retries: conf.intValue('retry_count'),
        retry_interval: conf.floatValue('retry_count_interval'),
        transport_cert_store_name: conf.str('transport_cert_store_name', 'azure'),
        ...(wireserver ? { wireserver_url: wireserver } : {}),
      },
    };
  },
  // The cloud's own platform check (DMI, the provisioning media): an HTTP service that fails where it says
  // Azure is an error, elsewhere "not available".
  detect: (ctx, source) => source.detect(ctx),
  // WindowsProvisioningConfigurationSet, wireserver protocol 2015-04-05; the runner sends the reports after the
  // plugins.
  crawl: (ctx) => crawlCloudbaseAzure(ctx),
};
