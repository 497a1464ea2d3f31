// The Azure service's write side for the plugins and the runner: health reports and the RDP thumbprint posted to the
// wireserver, as cloudbase-init's AzureService does.
import type { CloudbaseConf } from '../config/cloudbase-init-conf';
import type { InstanceData } from '../sources/datasource';
import type { WindowsSystem } from '../platform/windows/windows-system';
import {
  azureServerCertificates,
  cloudbaseAzureSettings,
  cloudbaseWireserver,
  type CloudbaseAzureMetadata,
} from '../sources/azure/cloudbase-azure';
import { HttpClient } from '../util/http';
import type { Log } from '../util/log';
import { cloudbaseAzureService } from '../sources/azure/cloudbase-azure-service';
import type { MetadataService } from './plugin';

/** cloudbase-init's texts for the NotReady reports. */
export const PROVISIONING_STARTED_DESCRIPTION = 'Cloudbase-Init is preparing your computer for first use...';
export const PROVISIONING_FAILED_DESCRIPTION = 'Provisioning failed';

/**
 * Adds the Azure operations to SERVICE, with the wireserver and goal state the crawl found (cloudbase-init keeps
 * its goal state from load(), so every report names the incarnation it provisioned). Returns the client's closer.
 */
export function addAzureFabric(
  service: MetadataService,
  instance: InstanceData,
  conf: CloudbaseConf,
  deps: { log: Log; env: NodeJS.ProcessEnv; windows?: WindowsSystem },
): () => Promise<void> {
  const meta = instance.metadata as Partial<CloudbaseAzureMetadata>;
  if (typeof meta.wireserver !== 'string' || !meta.goal_state) return async () => undefined;
  const goal = meta.goal_state;
  const settings = cloudbaseAzureSettings(cloudbaseAzureService.settings(conf, () => []).settings);
  let http: HttpClient | undefined;
  const wire = () =>
    cloudbaseWireserver(
      (http ??= new HttpClient({ log: deps.log, env: deps.env })),
      deps.log,
      meta.wireserver as string,
      settings,
    );
  service.provisioningStarted = () =>
    wire().postHealth(goal, 'NotReady', 'Provisioning', PROVISIONING_STARTED_DESCRIPTION);
  service.provisioningCompleted = () => wire().postHealth(goal, 'Ready');
  service.provisioningFailed = () =>
    wire().postHealth(goal, 'NotReady', 'ProvisioningFailed', PROVISIONING_FAILED_DESCRIPTION);
  service.postRdpCertificateThumbprint = (thumbprint) =>
    wire().postRoleProperties(goal, { CertificateThumbprint: thumbprint });
  const windows = deps.windows;
  service.serverCertificates = async () => {
    if (!goal.certificatesUrl) return [];
    if (!windows)
      throw new Error(
        'the goal state names certificates, but there is no Windows certificate store to decrypt them with',
      );
    return azureServerCertificates(
      windows,
      deps.log,
      wire(),
      goal,
      conf.strValue('transport_cert_store_name', 'azure'),
    );
  };
  return async () => http?.close();
}
