// None: cloud-init's last resort, an instance with no metadata (or what `datasource: {None: …}` gives).
import type { Datasource, InstanceData } from './datasource';
import { sourceSettings } from './settings';

export const noneSource: Datasource = {
  name: 'None',
  kind: 'local',
  async detect() {
    return true;
  },
  async crawl(ctx) {
    const settings = sourceSettings(ctx.config, 'None');
    const given = settings.metadata;
    const metadata =
      given && typeof given === 'object' && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
    const id = typeof metadata['instance-id'] === 'string' ? metadata['instance-id'] : 'iid-datasource-none';
    const data: InstanceData = {
      instanceId: id,
      cloudName: 'none',
      platform: 'none',
      subplatform: 'config',
      publicKeys: [],
      metadata,
    };
    if (typeof metadata['local-hostname'] === 'string') data.localHostname = metadata['local-hostname'];
    if (typeof settings.userdata_raw === 'string') data.userData = Buffer.from(settings.userdata_raw);
    return data;
  },
};
