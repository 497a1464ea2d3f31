// What MaaSHttpService takes from cloudbase-init.conf: the [maas] options (their deprecated [DEFAULT] maas_* names are
// read as these by the conf loader) as the MAAS source's settings.
import type { CloudbaseConf } from '../config/cloudbase-init-conf';

export function maasServiceSettings(conf: CloudbaseConf): { settings: Record<string, unknown> } {
  const settings: Record<string, unknown> = {
    cloudbase_init: true,
    consumer_key: conf.str('oauth_consumer_key', 'maas') ?? '',
    consumer_secret: conf.str('oauth_consumer_secret', 'maas') ?? '',
    token_key: conf.str('oauth_token_key', 'maas') ?? '',
    token_secret: conf.str('oauth_token_secret', 'maas') ?? '',
    retries: conf.int('retry_count') ?? 5,
    retry_interval: conf.float('retry_count_interval') ?? 4,
  };
  const url = conf.str('metadata_base_url', 'maas');
  if (url !== undefined) settings.metadata_url = url;
  return { settings };
}
