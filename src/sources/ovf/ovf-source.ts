// OVF: cloud-init's DataSourceOVF: an OVF environment (ovf-env.xml) from the seed folder, VMware's guestinfo.ovfEnv, or
// a CD-ROM ISO.
import { readYaml, YamlError } from '../../config/read-yaml';
import type { FoundFilesystem } from '../../devices/filesystem-finder';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { FolderTree } from '../folder-tree';
import { SourceError } from '../source-error';
import { sourceSettings } from '../settings';
import { guestinfoTools } from '../vmware/guestinfo-tool';
import { isVmwarePlatform } from '../vmware/vmware-source';
import { OVF_ENV_NAMES, readOvfEnvironment, type OvfEnvironment } from './ovf-environment';
import { subplatformSource } from '../source-description';
import { describeError } from '../../util/errors';

const NAME = 'OVF';
/**
 * Where a seeded ovf-env.xml is read: cloud-init 22.4's crawl looks in the seed folder itself
 * (get_ovf_env(paths.seed_dir)), while ds-identify checks seed/ovf/; kiln reads both, cloud-init's first.
 */
export const OVF_SEED_DIRS = ['/var/lib/cloud/seed', '/var/lib/cloud/seed/ovf'];
/**
 * Azure hands over an ovf-env.xml too; its chassis asset tag keeps OVF from claiming it (ds-identify's
 * is_azure_chassis).
 */
const AZURE_CHASSIS = '7783-7084-3265-9085-8269-3286-77';
/** Labels ds-identify knows to belong to other sources' drives. */
const OTHER_LABELS = /^(config-2|CONFIG-2|rd_rdfe_stable.*|cidata|CIDATA)$/;
/** Labels OVF tools give the environment ISO (ds-identify's fast path); any other label is accepted as well. */
const OVF_LABELS = ['OVF-TRANSPORT', 'ovf-transport', 'OVFENV', 'ovfenv', 'OVF ENV', 'ovf env'];
/** cloud-init's maybe_cdrom_device (60-cdrom_id.rules): sr0, hda, xvd*. */
const CDROM_DEVICE = /^(sr[0-9]+|hd[a-z]|xvd.*)/;
const DEFAULT_TIMEOUT_S = 5;

async function readFirst(
  tree: { readFile(p: string): Promise<Uint8Array | undefined> },
  names: string[],
): Promise<{ name: string; text: string } | undefined> {
  for (const name of names) {
    const bytes = await tree.readFile(name).catch(() => undefined);
    if (bytes) return { name, text: Buffer.from(bytes).toString('utf8') };
  }
  return undefined;
}

/** CD-ROM ISO 9660 filesystems holding an OVF environment file, in device order. */
async function environmentIsos(ctx: DetectContext): Promise<FoundFilesystem[]> {
  return ctx.finder.find({
    labels: OVF_LABELS,
    anyLabel: true,
    fsTypes: ['iso9660'],
    deviceName: CDROM_DEVICE,
    mustContain: OVF_ENV_NAMES,
  });
}

function timeoutMs(settings: Record<string, unknown>): number {
  const n = Number(settings.timeout ?? DEFAULT_TIMEOUT_S);
  if (!Number.isFinite(n) || n <= 0)
    throw new SourceError(
      NAME,
      `datasource.OVF.timeout must be a positive number of seconds, not ${JSON.stringify(settings.timeout)}`,
    );
  return n * 1000;
}

/**
 * `guestinfo.ovfEnv` through vmware-rpctool (or vmtoolsd), when it holds XML; undefined otherwise or when the tool
 * fails.
 */
async function guestinfoOvfEnv(ctx: DetectContext, ms: number): Promise<string | undefined> {
  for (const tool of await guestinfoTools(ctx.platform, ms)) {
    try {
      const xml = await tool.get('ovfEnv');
      if (xml && /^<\?xml/i.test(xml.trimStart())) return xml;
      if (xml) ctx.log.debug(`OVF: guestinfo.ovfEnv is not XML; ignored`);
      return undefined;
    } catch (err) {
      ctx.log.debug(`OVF: ${describeError(err)}`);
    }
  }
  return undefined;
}

/**
 * util.read_seeded for a local seedfrom (`/path/` or `file:///path/`): meta-data and user-data required, vendor-data
 * optional.
 */
async function readLocalSeed(
  ctx: CrawlContext,
  seedfrom: string,
): Promise<{ metadata: Record<string, unknown>; userData: Uint8Array; vendorData?: Uint8Array }> {
  const dir = seedfrom.replace(/^file:\/\//, '').replace(/\/+$/, '') || '/';
  const tree = new FolderTree(ctx.platform, dir);
  const md = await tree.readFile('meta-data');
  if (!md) throw new SourceError(NAME, `seedfrom ${seedfrom}: ${dir}/meta-data is missing`);
  const ud = await tree.readFile('user-data');
  if (!ud) throw new SourceError(NAME, `seedfrom ${seedfrom}: ${dir}/user-data is missing`);
  let meta: unknown;
  try {
    meta = readYaml(Buffer.from(md).toString('utf8'), `${dir}/meta-data`);
  } catch (err) {
    throw new SourceError(NAME, err instanceof YamlError ? err.message : `${dir}/meta-data: ${describeError(err)}`);
  }
  if (meta !== null && meta !== undefined && (typeof meta !== 'object' || Array.isArray(meta)))
    throw new SourceError(NAME, `${dir}/meta-data must be a mapping`);
  const vd = await tree.readFile('vendor-data');
  return { metadata: (meta ?? {}) as Record<string, unknown>, userData: ud, ...(vd ? { vendorData: vd } : {}) };
}

function publicKeysOf(md: Record<string, unknown>): string[] {
  const v = md['public-keys'];
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]).filter((k): k is string => typeof k === 'string' && k.trim() !== '');
}

export const ovfSource: Datasource = {
  name: NAME,
  kind: 'local',
  /** cloud-init's class per stage (its *Local class registers with the filesystem dependency only). */
  classNames: { local: 'OVF', network: 'OVFNet' },
  describe: (data, cls) => `${cls} [seed=${subplatformSource(data)}]`,
  /**
   * ds-identify's dscheck_OVF, without its 10 MB size check on the ISO (kiln looks for the file instead of grepping the
   * device).
   */
  async detect(ctx) {
    for (const dir of OVF_SEED_DIRS) if (await readFirst(new FolderTree(ctx.platform, dir), OVF_ENV_NAMES)) return true;
    if (ctx.dmi.chassis_asset_tag === AZURE_CHASSIS) return false;
    if (isVmwarePlatform(ctx.dmi) && (await guestinfoOvfEnv(ctx, timeoutMs(sourceSettings(ctx.config, NAME)))))
      return true;
    const isos = await environmentIsos(ctx);
    return isos.some((fs) => !OTHER_LABELS.test(fs.label));
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    const found: string[] = [];
    let env: OvfEnvironment | undefined;
    let seed: { dir: string; name: string; text: string } | undefined;
    for (const dir of OVF_SEED_DIRS) {
      const file = await readFirst(new FolderTree(ctx.platform, dir), OVF_ENV_NAMES);
      if (file) {
        seed = { dir, ...file };
        break;
      }
    }
    if (seed) {
      const path = `${seed.dir}/${seed.name}`;
      env = readOvfEnvironment(seed.text, path, ctx.log, false);
      found.push(path);
    }
    // As cloud-init 22.4, the transports are read even after a seed folder, and one that answers wins.
    const fromGuestinfo = await guestinfoOvfEnv(ctx, timeoutMs(ctx.settings));
    if (fromGuestinfo) {
      env = readOvfEnvironment(fromGuestinfo, 'guestinfo.ovfEnv', ctx.log, true);
      found.push('com.vmware.guestInfo');
    } else {
      for (const fs of await environmentIsos(ctx)) {
        const file = await readFirst(fs.tree, OVF_ENV_NAMES);
        if (!file) continue;
        ctx.log.debug(`OVF: ${file.name} on ${fs.device} (label '${fs.label}')`);
        env = readOvfEnvironment(file.text, `${fs.device} ${file.name}`, ctx.log, true);
        found.push('iso');
        break;
      }
    }
    if (!env)
      throw new SourceError(
        NAME,
        `no OVF environment: nothing in ${OVF_SEED_DIRS.join(' or ')}, guestinfo.ovfEnv or on a CD-ROM ISO 9660 (${OVF_ENV_NAMES.join(', ')})`,
      );
    let metadata = env.metadata;
    let userData = env.userData;
    let vendorData: Uint8Array | undefined;
    const seedfrom = metadata.seedfrom;
    if (typeof seedfrom === 'string' && seedfrom) {
      if (!seedfrom.startsWith('/') && !seedfrom.startsWith('file://')) {
        throw new SourceError(
          NAME,
          `seedfrom ${seedfrom}: only /path and file:// seeds are read (cloud-init's OVFNet reads http(s) seeds in the network stage; kiln does not yet)`,
        );
      }
      const seeded = await readLocalSeed(ctx, seedfrom);
      // cloud-init's mergemanydict([md, seeded]): the environment's keys win; the seed's user data replaces it.
      metadata = { ...seeded.metadata, ...metadata };
      userData = seeded.userData;
      vendorData = seeded.vendorData;
      found.push(seedfrom);
    }
    metadata = { 'instance-id': 'iid-dsovf', ...metadata };
    const where = found.join(',');
    const data: InstanceData = {
      instanceId: String(metadata['instance-id']),
      cloudName: 'ovf',
      platform: 'ovf',
      // cloud-init says 'vmware (…)' only when the DMI product name is exactly 'vmware', as it compares.
      subplatform: `${(ctx.dmi.product_name ?? '').toLowerCase() === 'vmware' ? 'vmware' : 'ovf'} (${where})`,
      publicKeys: publicKeysOf(metadata),
      metadata,
    };
    const host = metadata['local-hostname'];
    if (typeof host === 'string' && host) data.localHostname = host;
    if (userData) data.userData = userData;
    if (vendorData) data.vendorData = vendorData;
    if (Object.keys(env.config).length > 0) data.sourceConfig = env.config;
    // The password property is cloud-config `password` (as cloud-init hands it on) and a secret the log must never
    // show.
    if (typeof env.config.password === 'string' && env.config.password) data.adminPassword = env.config.password;
    const net = metadata['network-config'];
    if (net && typeof net === 'object' && !Array.isArray(net)) {
      const version = Number((net as Record<string, unknown>).version);
      if (version === 1 || version === 2) data.networkConfig = { format: version === 1 ? 'v1' : 'v2', config: net };
      else
        throw new SourceError(
          NAME,
          `${where}: network-config's 'version' must be 1 or 2, not ${JSON.stringify((net as Record<string, unknown>).version ?? null)}`,
        );
    }
    return data;
  },
};
