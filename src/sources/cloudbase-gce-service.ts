// cloudbase-init's GCEService: the GCE metadata server read with gce.ts's readers, by GCEService's rules (host name
// from instance/name, keys for the configured username only).
import type { CrawlContext, InstanceData } from './datasource';
import type { CloudbaseMetadataService } from './cloudbase-metadata-service';
import { CLOUDBASE_SERVICES_PACKAGE } from './cloudbase-metadata-service';
import { readGceMetadata, userDataOf, type GceMetadata } from './gce';
import { cloudbaseKey, type GceAttributes } from './gce-ssh-keys';
import { SourceError } from './source-error';

/**
 * cloudbase-init's GCEService: host name from instance/name, keys for the configured username, hyphenated keys only.
 */
async function cloudbaseData(
  ctx: CrawlContext,
  md: GceMetadata,
  instanceId: string,
  username: string,
): Promise<InstanceData> {
  const name = await md.required('name', 'instance/name');
  const zone = await md.text('instance/zone');
  const instance = await md.attributes('instance/attributes');
  const project = await md.attributes('project/attributes');
  const lines: string[] = [];
  const take = (attrs: GceAttributes, where: string) => {
    const v = attrs['ssh-keys'];
    if (typeof v === 'string') lines.push(...v.trim().split(/\r\n|\r|\n/));
    else ctx.log.warn(`SSH keys not found at location ${where}/ssh-keys`);
  };
  take(instance.value, 'instance/attributes');
  if (instance.value['block-project-ssh-keys'] !== 'true') take(project.value, 'project/attributes');
  const now = new Date();
  const publicKeys: string[] = [];
  for (const line of lines) {
    const verdict = cloudbaseKey(line, username, now);
    if (!verdict) continue;
    if ('key' in verdict) publicKeys.push(verdict.key);
    else ctx.log.warn(verdict.skipped);
  }
  const az = zone?.trim().split('/').at(-1);
  const data: InstanceData = {
    instanceId: instanceId.trim(),
    cloudName: 'gce',
    platform: 'gce',
    subplatform: `metadata (${md.url})`,
    localHostname: name.trim(),
    publicKeys,
    metadata: {
      'instance-id': instanceId,
      name,
      ...(az ? { 'availability-zone': az } : {}),
      'instance-data': instance.raw ?? null,
      'project-data': project.raw ?? null,
    },
  };
  if (az) {
    data.availabilityZone = az;
    data.region = az.replace(/-[^-]*$/, '');
  }
  const ud = userDataOf(instance.value, (m) => ctx.log.warn(m));
  if (ud !== undefined) data.userData = ud;
  return data;
}

export const cloudbaseGceService: CloudbaseMetadataService = {
  classPath: `${CLOUDBASE_SERVICES_PACKAGE}gceservice.GCEService`,
  datasource: 'GCE',
  kind: 'network',
  // [gce] metadata_base_url (the computeMetadata/v1/ URL), retry_count, and the [DEFAULT] username whose keys it takes.
  settings: (conf) => ({
    settings: {
      username: conf.strValue('username'),
      metadata_url: conf.str('metadata_base_url', 'gce'),
      retries: conf.intValue('retry_count'),
    },
  }),
  // The cloud's DMI check only tells "not available" from an error: GCEService has no platform check and is always
  // asked.
  detect: (ctx, source) => source.detect(ctx),
  crawl: async (ctx) => {
    const username = ctx.settings.username;
    if (typeof username !== 'string' || username === '')
      throw new SourceError(
        'GCE',
        `GCEService needs the [DEFAULT] username whose keys it takes, not ${JSON.stringify(username ?? null)}`,
      );
    return readGceMetadata(ctx, (md, instanceId) => cloudbaseData(ctx, md, instanceId, username));
  },
};
