// VMware guestinfo on Windows as cloudbase-init's VMwareGuestInfoService reads it: rpctool.exe, metadata and userdata
// only.
import { readYaml } from '../../config/read-yaml';
import type { CrawlContext, DetectContext, InstanceData } from '../datasource';
import { SourceError } from '../source-error';
import { decodeGuestinfo, guestinfoText } from './guestinfo-decode';
import { guestinfoKey } from './guestinfo-tool';

const NAME = 'VMware';
/** cloudbase-init's [vmwareguestinfo] vmware_rpctool_path default. */
export const DEFAULT_RPCTOOL_PATH = '%ProgramFiles%/VMware/VMware Tools/rpctool.exe';
const TIMEOUT_MS = 30_000;

/** os.path.expandvars for Windows' %NAME% references (names compare case-insensitively there); unknown ones stay. */
function expandVars(path: string, env: NodeJS.ProcessEnv): string {
  const byUpper = new Map(Object.entries(env).map(([k, v]) => [k.toUpperCase(), v]));
  return path.replace(/%([^%]+)%/g, (m, name: string) => byUpper.get(name.toUpperCase()) ?? m);
}

/** The rpctool path from the settings (the conf's vmware_rpctool_path), expanded; undefined when unset or empty. */
export function cloudbaseRpctoolPath(ctx: DetectContext, settings: Record<string, unknown>): string | undefined {
  const given = settings.vmware_rpctool_path === undefined ? DEFAULT_RPCTOOL_PATH : settings.vmware_rpctool_path;
  if (typeof given !== 'string' || given.trim() === '') return undefined;
  return expandVars(given, ctx.env ?? {}).replace(/\//g, '\\');
}

/**
 * `"rpctool.exe" "info-get guestinfo.KEY"` run by cmd.exe, as cloudbase-init's execute_process runs it (shell=True), so
 * a tool that is a batch file works as it does there; any failure is "no value", as cloudbase-init logs it at DEBUG and
 * moves on. Both parts are quoted (list2cmdline quotes the RPC, and the tool's path when it has a space).
 */
async function get(ctx: DetectContext, tool: string, key: string): Promise<string | undefined> {
  const r = await ctx.platform.run(`"${tool}" "info-get ${guestinfoKey(key)}"`, {
    allowFailure: true,
    timeoutMs: TIMEOUT_MS,
  });
  if (r.code !== 0) {
    ctx.log.debug(`VMware: ${tool} 'info-get ${guestinfoKey(key)}' exited ${r.code}: ${r.stderr.trim()}`);
    return undefined;
  }
  return r.stdout;
}

/** cloudbase-init's _get_guest_data: `KEY.encoding` blank means plaintext; an encoding it does not know is an error. */
async function guestData(ctx: CrawlContext, tool: string, key: string): Promise<Uint8Array | undefined> {
  const raw = await get(ctx, tool, key);
  const encoding = (await get(ctx, tool, `${key}.encoding`))?.trim() || 'plaintext';
  if (!['plaintext', 'base64', 'b64', 'gzip+base64', 'gz+b64'].includes(encoding))
    throw new SourceError(NAME, `${guestinfoKey(`${key}.encoding`)}: encoding '${encoding}' is not supported`);
  if (!raw) return undefined;
  return decodeGuestinfo(guestinfoKey(key), encoding === 'plaintext' ? undefined : encoding, raw, ctx.log);
}

/** cloudbase-init's load() test: the tool exists and guestinfo.metadata or guestinfo.userdata holds something. */
export async function hasCloudbaseGuestinfo(ctx: DetectContext, settings: Record<string, unknown>): Promise<boolean> {
  const tool = cloudbaseRpctoolPath(ctx, settings);
  if (!tool || !(await ctx.platform.exists(tool))) return false;
  for (const key of ['metadata', 'userdata']) if ((await get(ctx, tool, key))?.trim()) return true;
  return false;
}

export async function crawlCloudbaseGuestinfo(ctx: CrawlContext): Promise<InstanceData> {
  const tool = cloudbaseRpctoolPath(ctx, ctx.settings);
  if (!tool) throw new SourceError(NAME, 'vmware_rpctool_path in [vmwareguestinfo] is empty');
  if (!(await ctx.platform.exists(tool)))
    throw new SourceError(
      NAME,
      `${tool} does not exist; set vmware_rpctool_path in [vmwareguestinfo] to VMware Tools' rpctool.exe`,
    );
  const mdBytes = await guestData(ctx, tool, 'metadata');
  let metadata: Record<string, unknown> = {};
  if (mdBytes) {
    const text = guestinfoText(guestinfoKey('metadata'), mdBytes);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: the metadata is read as YAML, as cloudbase-init does.
      parsed = readYaml(text, guestinfoKey('metadata'));
    }
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) metadata = parsed as Record<string, unknown>;
    else ctx.log.warn('VMware: guestinfo.metadata is not a mapping; ignored, as cloudbase-init does');
  }
  const userData = await guestData(ctx, tool, 'userdata');
  if (Object.keys(metadata).length === 0 && !userData)
    throw new SourceError(NAME, 'guestinfo.metadata and guestinfo.userdata are both empty');
  const id = metadata['instance-id'];
  if (typeof id !== 'string' && typeof id !== 'number')
    throw new SourceError(
      NAME,
      'guestinfo.metadata has no instance-id (cloudbase-init needs one to keep plugin state)',
    );
  const keys =
    typeof metadata['public-keys-data'] === 'string'
      ? (metadata['public-keys-data'] as string).split(/\r?\n/).map((k) => k.trim())
      : [];
  const data: InstanceData = {
    instanceId: String(id),
    cloudName: 'vmware',
    platform: 'vmware',
    subplatform: `guestinfo (${guestinfoKey('metadata')})`,
    publicKeys: [...new Set(keys.filter((k) => k !== ''))],
    metadata: Object.fromEntries(Object.entries(metadata).filter(([k]) => k !== 'admin-password')),
  };
  if (typeof metadata['admin-username'] === 'string' && metadata['admin-username'])
    data.metadata.admin_username = metadata['admin-username'];
  if (typeof metadata['local-hostname'] === 'string') data.localHostname = metadata['local-hostname'];
  if (typeof metadata['admin-password'] === 'string' && metadata['admin-password'])
    data.adminPassword = metadata['admin-password'];
  if (userData) data.userData = userData;
  // cloudbase-init reads network config version 1 only (its NoCloud v1 parser); anything else is logged and left out.
  const network = metadata.network;
  if (network && typeof network === 'object' && !Array.isArray(network)) {
    const n = network as Record<string, unknown>;
    if (n.version === 1 && n.config !== undefined) data.networkConfig = { format: 'v1', config: n };
    else
      ctx.log.warn(
        `VMware: guestinfo.metadata network version ${JSON.stringify(n.version ?? null)} is not supported by cloudbase-init (version 1 with config only); ignored`,
      );
  }
  return data;
}
