// cloudbase-init's MaaSHttpService: the MAAS source's cloudbase-init reads, given the [maas] options (their deprecated
// [DEFAULT] maas_* names are read as these by the conf loader).
import type { CloudbaseConf } from '../../config/cloudbase-init-conf';
import { sourceService, type ServiceSettings } from '../cloudbase-metadata-service';

export function maasServiceSettings(conf: CloudbaseConf): ServiceSettings {
  const settings: Record<string, unknown> = {
    cloudbase_init: true,
    consumer_key: conf.strValue('oauth_consumer_key', 'maas'),
    consumer_secret: conf.strValue('oauth_consumer_secret', 'maas'),
    token_key: conf.strValue('oauth_token_key', 'maas'),
    token_secret: conf.strValue('oauth_token_secret', 'maas'),
    retries: conf.intValue('retry_count'),
    retry_interval: conf.floatValue('retry_count_interval'),
  };
  const url = conf.str('metadata_base_url', 'maas');
  if (url !== undefined) settings.metadata_url = url;
  return { settings };
}

export const cloudbaseMaasService = sourceService('maasservice.MaaSHttpService', 'MAAS', { settings: maasServiceSettings });
