// OpenNebula: the CONTEXT drive (or the seed folder) with context.sh, read as cloud-init's DataSourceOpenNebula
// reads it (cloudbase-init's OpenNebulaService, cloudbase-opennebula-service.ts, shares the context.sh parser).
import type { FileTree } from '../../devices/filesystem-finder';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { FolderTree } from '../folder-tree';
import { SourceError } from '../source-error';
import { ContextShellError, parseContextShell } from './context-shell';
import { contextHasAddresses, openNebulaNetworkConfig, physicalNicsByMac } from './opennebula-network';
import { pythonB64decode } from './python-b64decode';
import { subplatformSource, dsmodeOf } from '../source-description';

const NAME = 'OpenNebula';
export const OPENNEBULA_SEED_DIR = '/var/lib/cloud/seed/opennebula';
export const OPENNEBULA_LABELS = ['CONTEXT', 'CDROM'];
/** cloud-init's DEFAULT_IID: context.sh has no instance id (a shell variable cannot be named instance-id). */
export const OPENNEBULA_INSTANCE_ID = 'iid-dsopennebula';

interface Candidate {
  tree: FileTree;
  subplatform: string;
}

/**
 * cloud-init's candidates: the seed folder, then filesystems labelled CONTEXT, then CDROM, then any ISO 9660
 * (each group by device name). In 22.4 an existing seed folder hides the devices (each device path is then read as
 * a folder, which it is not), so only the seed folder is read then.
 */
async function candidates(ctx: DetectContext): Promise<Candidate[]> {
  if (await ctx.platform.exists(OPENNEBULA_SEED_DIR))
    return [
      { tree: new FolderTree(ctx.platform, OPENNEBULA_SEED_DIR), subplatform: `seed-dir (${OPENNEBULA_SEED_DIR})` },
    ];
  const found = await ctx.finder.find({ labels: OPENNEBULA_LABELS, anyLabel: true });
  const byDevice = (a: { device: string }, b: { device: string }) =>
    a.device < b.device ? -1 : a.device > b.device ? 1 : 0;
  const groups = [
    ...OPENNEBULA_LABELS.map((l) => found.filter((f) => f.label === l)),
    found.filter((f) => f.fsType === 'iso9660'),
  ];
  const out: Candidate[] = [];
  for (const g of groups) {
    for (const f of g.sort(byDevice))
      if (!out.some((c) => c.subplatform === `config-disk (${f.device})`))
        out.push({ tree: f.tree, subplatform: `config-disk (${f.device})` });
  }
  return out;
}

/** cloud-init's read_context_disk_dir after the shell: keys, host name, user data, network. */
async function contextToInstanceData(
  ctx: CrawlContext,
  context: Record<string, string>,
  subplatform: string,
): Promise<InstanceData> {
  const metadata: Record<string, unknown> = { ...context };
  const data: InstanceData = {
    instanceId: OPENNEBULA_INSTANCE_ID,
    cloudName: 'opennebula',
    platform: 'opennebula',
    subplatform,
    publicKeys: [],
    metadata,
  };
  const keyVar = 'SSH_KEY' in context ? 'SSH_KEY' : 'SSH_PUBLIC_KEY' in context ? 'SSH_PUBLIC_KEY' : undefined;
  if (keyVar) {
    const keys = (context[keyVar] as string)
      .split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/)
      .filter((l) => l.length > 0 && !l.startsWith('#'));
    metadata['public-keys'] = keys;
    data.publicKeys = keys;
  }
  // The first of these that is set, even empty; otherwise cloud-init makes a host name from the address later.
  const hostKey = ['SET_HOSTNAME', 'HOSTNAME', 'PUBLIC_IP', 'IP_PUBLIC', 'ETH0_IP'].find((k) => k in context);
  if (hostKey) {
    metadata['local-hostname'] = context[hostKey];
    if (context[hostKey]) data.localHostname = context[hostKey];
  }
  const userData = context.USER_DATA ?? context.USERDATA;
  const encoding = context.USERDATA_ENCODING ?? context.USER_DATA_ENCODING;
  if (userData !== undefined) {
    if (encoding === 'base64') {
      const decoded = pythonB64decode(userData);
      if (typeof decoded === 'string')
        throw new SourceError(NAME, `${subplatform}: USER_DATA is marked base64 but is not: ${decoded}`);
      data.userData = decoded;
    } else data.userData = Buffer.from(userData, 'utf8');
  } else if (encoding === 'base64') ctx.log.warn('Failed base64 decoding of userdata'); // cloud-init decodes the missing user data and logs this
  if (contextHasAddresses(context))
    data.networkConfig = {
      format: 'v2',
      config: openNebulaNetworkConfig(context, await physicalNicsByMac(ctx.platform)),
    };
  metadata['instance-id'] = OPENNEBULA_INSTANCE_ID;
  return data;
}

/** Reads context.sh from one candidate; undefined when it has none (cloud-init's NonContextDiskDir: try the next). */
async function readCandidate(ctx: CrawlContext, c: Candidate): Promise<InstanceData | undefined> {
  const bytes = await c.tree.readFile('context.sh');
  if (!bytes) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SourceError(NAME, `${c.subplatform}: context.sh is not UTF-8 text`);
  }
  let context: Record<string, string>;
  try {
    context = parseContextShell(text);
  } catch (err) {
    // cloud-init's BrokenContextDiskDir: a context.sh the shell stops on ends the search.
    if (err instanceof ContextShellError)
      throw new SourceError(NAME, `${c.subplatform}: error processing ${err.message}`, { cause: err });
    throw err;
  }
  return contextToInstanceData(ctx, context, c.subplatform);
}

export const openNebulaSource: Datasource = {
  name: NAME,
  kind: 'local',
  describe: (data, cls) => `${cls} [seed=${subplatformSource(data)}][dsmode=${dsmodeOf(data)}]`,
  async detect(ctx) {
    // ds-identify: the seed folder (with meta-data, its generic check; or context.sh) or a CONTEXT/CDROM label.
    const seed = new FolderTree(ctx.platform, OPENNEBULA_SEED_DIR);
    if ((await seed.exists('context.sh')) || (await seed.exists('meta-data'))) return true;
    return (await ctx.finder.find({ labels: OPENNEBULA_LABELS })).some((f) => OPENNEBULA_LABELS.includes(f.label));
  },
  async crawl(ctx) {
    if (ctx.settings.dsmode === 'disabled')
      throw new SourceError(NAME, "dsmode is 'disabled' in the datasource settings");
    for (const c of await candidates(ctx)) {
      const data = await readCandidate(ctx, c);
      if (!data) {
        ctx.log.debug(`OpenNebula: ${c.subplatform} has no context.sh; skipped`);
        continue;
      }
      ctx.log.debug(`OpenNebula: found datasource in ${c.subplatform}`);
      return data;
    }
    throw new SourceError(
      NAME,
      `no context.sh in ${OPENNEBULA_SEED_DIR} or on a filesystem labelled ${OPENNEBULA_LABELS.join('/')} or any ISO 9660 one`,
    );
  },
};
