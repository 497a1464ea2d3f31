// The OVF environment on Windows as cloudbase-init's OvfService reads it: a drive labelled [ovf] drive_label,
// properties by prefix.
import type { FoundFilesystem } from '../../devices/filesystem-finder';
import type { CrawlContext, DetectContext, InstanceData } from '../datasource';
import { SourceError } from '../source-error';
import { parseOvfXml } from './ovf-environment';

const NAME = 'OVF';

interface OvfConf {
  label: string;
  file: string;
  /** The attribute prefix (`oe`): cloudbase-init's untangle matches `oe:key` by its written name, not by namespace. */
  ns: string;
}

function conf(settings: Record<string, unknown>): OvfConf {
  const s = (k: string, d: string) =>
    typeof settings[k] === 'string' && settings[k] !== '' ? (settings[k] as string) : d;
  return { label: s('drive_label', 'OVF ENV'), file: s('config_file_name', 'ovf-env.xml'), ns: s('ns', 'oe') };
}

/** Drives whose label equals drive_label (case-insensitively) and that hold config_file_name. */
async function drives(ctx: DetectContext, c: OvfConf): Promise<FoundFilesystem[]> {
  const found = await ctx.finder.find({ labels: [c.label], anyLabel: true, mustContain: [c.file] });
  return found.filter((fs) => fs.label.toLowerCase() === c.label.toLowerCase());
}

export async function detectCloudbaseOvf(ctx: DetectContext, settings: Record<string, unknown>): Promise<boolean> {
  return (await drives(ctx, conf(settings))).length > 0;
}

export async function crawlCloudbaseOvf(ctx: CrawlContext): Promise<InstanceData> {
  const c = conf(ctx.settings);
  const drive = (await drives(ctx, c))[0];
  if (!drive) throw new SourceError(NAME, `no drive labelled '${c.label}' holding ${c.file}`);
  const bytes = await drive.tree.readFile(c.file);
  if (!bytes) throw new SourceError(NAME, `${drive.device}: ${c.file} vanished while being read`);
  const where = `${drive.device} ${c.file}`;
  const root = parseOvfXml(Buffer.from(bytes).toString('utf8'), where);
  const section = root.children.find((e) => e.qname === 'PropertySection');
  const values = (name: string): string[] =>
    (section?.children ?? [])
      .filter((p) => p.qname === 'Property' && p.attributes[`${c.ns}:key`] === name)
      .map((p) => p.attributes[`${c.ns}:value`]?.trim() ?? '')
      .filter((v) => v !== '');
  if (!section) ctx.log.warn(`OVF: ${where} has no PropertySection`);
  const one = (name: string) => values(name)[0];
  const data: InstanceData = {
    instanceId: one('instance-id') ?? 'iid-ovf',
    cloudName: 'ovf',
    platform: 'ovf',
    subplatform: `ovf (${drive.device})`,
    publicKeys: values('public-keys'),
    metadata: {},
  };
  for (const key of ['instance-id', 'hostname', 'username', 'public-keys'])
    if (one(key) !== undefined) data.metadata[key] = key === 'public-keys' ? values(key) : one(key);
  const user = one('username');
  if (user) data.metadata.admin_username = user;
  const host = one('hostname');
  if (host) data.localHostname = host;
  const password = one('password');
  if (password) data.adminPassword = password;
  const ud = one('user-data');
  if (ud) {
    const compact = ud.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0)
      throw new SourceError(NAME, `${where}: the user-data property is not base64`);
    data.userData = Buffer.from(compact, 'base64');
  }
  return data;
}
