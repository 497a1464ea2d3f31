// The write side of the metadata services: which found service can take the admin password or the RDP thumbprint back,
// and how.
import type { CloudbaseConf } from '../config/cloudbase-init-conf';
import type { WindowsSystem } from '../platform/windows/windows-system';
import type { InstanceData } from '../sources/datasource';
import { HttpClient } from '../util/http';
import { addAzureFabric } from './azure-fabric-service';
import type { Log } from '../util/log';
import type { MetadataService } from './plugin';

/**
 * cloudbase-init's HttpService posts to this metadata version's password path (Nova keeps it, answering 409 once set).
 */
const PASSWORD_MD_VERSION = '2013-04-04';

/**
 * The plugins' view of the service that gave the metadata. As in cloudbase-init, only the OpenStack HTTP
 * service and PacketService (to its phone_home_url, encrypted with the key found there) take a password (a
 * config drive is read-only, EC2 has no such call); the Azure service takes the RDP thumbprint and the
 * provisioning reports, sent to the wireserver INSTANCE was read from.
 */
export function metadataServiceFor(
  classPath: string,
  datasource: string,
  conf: CloudbaseConf,
  deps: { log: Log; env: NodeJS.ProcessEnv; windows?: WindowsSystem },
  instance?: InstanceData,
): { service: MetadataService; close(): Promise<void> } {
  let http: HttpClient | undefined;
  const service: MetadataService = { classPath };
  if (datasource === 'Azure' && instance) {
    const close = addAzureFabric(service, instance, conf, deps);
    return { service, close };
  }
  if (datasource === 'OpenStack' && classPath.endsWith('httpservice.HttpService')) {
    const base = conf.strValue('metadata_base_url', 'openstack').replace(/\/*$/, '/');
    const url = `${base}openstack/${PASSWORD_MD_VERSION}/password`;
    const retry = {
      retries: conf.intValue('retry_count'),
      backoffMs: conf.floatValue('retry_count_interval') * 1000,
      timeoutMs: 10_000,
    };
    service.isPasswordSet = async (): Promise<boolean> => {
      http ??= new HttpClient({ log: deps.log, env: deps.env });
      const res = await http.fetch(url, { ...retry, acceptStatuses: [404] });
      return res.status === 200 && res.body.length > 0;
    };
    service.postPassword = async (encrypted: string): Promise<boolean> => {
      http ??= new HttpClient({ log: deps.log, env: deps.env });
      const res = await http.fetch(url, {
        method: 'POST',
        body: encrypted,
        headers: { 'content-type': 'text/plain' },
        acceptStatuses: [409],
        ...retry,
      });
      return res.status !== 409;
    };
  }
  if (datasource === 'Packet' && classPath.endsWith('packet.PacketService')) {
    const phoneHome = instance?.metadata.phone_home_url;
    const retry = {
      retries: conf.intValue('retry_count'),
      backoffMs: conf.floatValue('retry_count_interval') * 1000,
      timeoutMs: 10_000,
    };
    const url = (): string => {
      if (typeof phoneHome !== 'string' || !/^https?:\/\//.test(phoneHome))
        throw new Error(`the Packet metadata has no phone_home_url to post to (${JSON.stringify(phoneHome ?? null)})`);
      return phoneHome;
    };
    // PacketService: the key is at <phone_home_url>/key; the password and the "ready" call are POSTs to phone_home_url.
    service.encryptionKey = async (): Promise<string | undefined> => {
      http ??= new HttpClient({ log: deps.log, env: deps.env });
      const res = await http.fetch(new URL('key', `${url()}/`).href, retry);
      return res.text().trim() || undefined;
    };
    service.postPassword = async (encrypted: string): Promise<boolean> => {
      http ??= new HttpClient({ log: deps.log, env: deps.env });
      deps.log.info(`Posting password to: ${url()}`);
      await http.fetch(url(), { method: 'POST', body: JSON.stringify({ password: encrypted }), ...retry });
      return true;
    };
    service.provisioningCompleted = async (): Promise<void> => {
      http ??= new HttpClient({ log: deps.log, env: deps.env });
      deps.log.info(`Calling home to: ${url()}`);
      // No body at all: Equinix Metal ends the provisioning on an empty POST.
      await http.fetch(url(), { method: 'POST', ...retry });
    };
  }
  return { service, close: async () => http?.close() };
}
