// ConfigDrive: OpenStack's config drive (label config-2, ISO or FAT) or the seed folder
// /var/lib/cloud/seed/config_drive.
import type { FileTree } from '../devices/filesystem-finder';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { SourceError } from './source-error';
import { FolderTree } from './folder-tree';
import { ibmConfigDriveDevice } from './ibmcloud';
import { chooseOpenStackVersion, openStackInstanceData, readOpenStackTree } from './openstack-tree';
import { subplatformSource, dsmodeOf } from './source-description';
import { describeError } from '../util/errors';

export const CONFIG_DRIVE_SEED_DIR = '/var/lib/cloud/seed/config_drive';
export const CONFIG_DRIVE_LABELS = ['config-2', 'CONFIG-2'];

interface Candidate {
  tree: FileTree;
  subplatform: string;
}

async function candidates(ctx: DetectContext): Promise<Candidate[]> {
  const found: Candidate[] = [];
  const seed = new FolderTree(ctx.platform, CONFIG_DRIVE_SEED_DIR);
  if (await seed.exists('openstack')) found.push({ tree: seed, subplatform: `seed-dir (${CONFIG_DRIVE_SEED_DIR})` });
  // IBM Cloud's config-2 (its own UUID, on Xen) belongs to IBMCloud when that source is enabled, as in cloud-init.
  const ibm = await ibmConfigDriveDevice(ctx);
  for (const fs of await ctx.finder.find({ labels: CONFIG_DRIVE_LABELS }))
    if (fs.device !== ibm) found.push({ tree: fs.tree, subplatform: `config-disk (${fs.device})` });
  return found;
}

/** Reads the ec2/ subtree a config drive also carries (ec2/latest or the newest dated ec2 version). */
async function readEc2Subtree(tree: FileTree): Promise<Record<string, unknown> | undefined> {
  const versions = (await tree.list('ec2'))?.filter((e) => e.type === 'directory').map((e) => e.name) ?? [];
  if (versions.length === 0) return undefined;
  const order = [
    ...versions
      .filter((v) => v !== 'latest')
      .sort()
      .reverse(),
    'latest',
  ];
  for (const v of order) {
    const bytes = await tree.readFile(`ec2/${v}/meta-data.json`);
    if (!bytes) continue;
    try {
      const parsed: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
      if (parsed && typeof parsed === 'object') return parsed as Record<string, unknown>;
    } catch {
      return undefined; // meta-data.json that is not JSON: no EC2 metadata from this drive
    }
  }
  return undefined;
}

export async function readConfigDriveTree(tree: FileTree, subplatform: string): Promise<InstanceData> {
  const versions = (await tree.list('openstack'))?.filter((e) => e.type === 'directory').map((e) => e.name) ?? [];
  if (versions.length === 0) throw new SourceError('ConfigDrive', `${subplatform}: no openstack/<version>/ folder`);
  const version = chooseOpenStackVersion(versions.filter((v) => v !== 'content'));
  const os = await readOpenStackTree('ConfigDrive', (p) => tree.readFile(p), version);
  const ec2 = await readEc2Subtree(tree);
  if (ec2) os.ec2Metadata = ec2;
  const data = openStackInstanceData('ConfigDrive', os, subplatform);
  data.platform = 'openstack';
  return data;
}

export const configDriveSource: Datasource = {
  name: 'ConfigDrive',
  kind: 'local',
  /** The dsmode, the metadata version read (kiln reads the openstack/ tree: 2) and the drive. */
  describe: (data, cls) => `${cls} [${dsmodeOf(data)},ver=2][source=${subplatformSource(data)}]`,
  async detect(ctx) {
    return (await candidates(ctx)).length > 0;
  },
  async crawl(ctx: CrawlContext) {
    const found = await candidates(ctx);
    if (found.length === 0)
      throw new SourceError(
        'ConfigDrive',
        `no filesystem labelled ${CONFIG_DRIVE_LABELS.join('/')} and no ${CONFIG_DRIVE_SEED_DIR}`,
      );
    const errors: string[] = [];
    for (const c of found) {
      try {
        const data = await readConfigDriveTree(c.tree, c.subplatform);
        ctx.log.debug(`ConfigDrive: read ${data.instanceId} from ${c.subplatform}`);
        return data;
      } catch (err) {
        errors.push(describeError(err));
      }
    }
    throw new SourceError('ConfigDrive', errors.join('; '));
  },
};
