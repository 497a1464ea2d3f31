// What MaaSHttpService takes from cloudbase-init.conf: the [maas] options (their deprecated [DEFAULT] maas_* names are
// read as these by the conf loader) as the MAAS source's settings.
import type { CloudbaseConf } from '../config/cloudbase-init-conf';

export function maasServiceSettings(conf: CloudbaseConf): { settings: Record<string, unknown> } {
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
