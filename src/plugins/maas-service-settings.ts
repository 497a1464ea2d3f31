// What MaaSHttpService takes from cloudbase-init.conf: the [maas] options (or their deprecated [DEFAULT] maas_* names) as the MAAS source's settings.
import type { CloudbaseConf } from '../config/cloudbase-init-conf';

/** [maas] wins over the old [DEFAULT] name, as oslo.config's deprecated_name does. */
function option(conf: CloudbaseConf, key: string): string | undefined {
  return conf.isSet(key, 'maas') ? conf.str(key, 'maas') : (conf.str(`maas_${key === 'metadata_base_url' ? 'metadata_url' : key}`) ?? conf.str(key, 'maas'));
}

export function maasServiceSettings(conf: CloudbaseConf): { settings: Record<string, unknown> } {
  const settings: Record<string, unknown> = {
    cloudbase_init: true,
    consumer_key: option(conf, 'oauth_consumer_key') ?? '',
    consumer_secret: option(conf, 'oauth_consumer_secret') ?? '',
    token_key: option(conf, 'oauth_token_key') ?? '',
    token_secret: option(conf, 'oauth_token_secret') ?? '',
    retries: conf.int('retry_count') ?? 5,
    retry_interval: conf.int('retry_count_interval') ?? 4,
  };
  const url = option(conf, 'metadata_base_url');
  if (url !== undefined) settings.metadata_url = url;
  return { settings };
}
