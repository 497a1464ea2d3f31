// WSL: cloud-init's DataSourceWSL (24.1+, with Ubuntu Pro for WSL's agent and Landscape data as upstream now
// reads them): meta-data and user data from the Windows user's %USERPROFILE%\.cloud-init folder.
import { posix } from 'node:path';
import { readYaml } from '../../config/read-yaml';
import type { Platform } from '../../platform/platform';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { SourceError } from '../source-error';
import { readDrvfsMounts, findWindowsHome, wslInstanceName, WSLPATH } from './wsl-windows-home';
import { configData, DEFAULT_WSL_INSTANCE_ID, mergeAgentAndUserData, type ConfigData } from './wsl-user-data';
import { describeError } from '../../util/errors';

const NAME = 'WSL';

/** systemd-detect-virt's wsl: the kernel says Microsoft/WSL; or WSL's interop handler is registered. */
export async function isWsl(platform: Platform): Promise<boolean> {
  const read = (p: string) => platform.readTextIfExists(p).catch(() => undefined);
  const release = `${(await read('/proc/sys/kernel/osrelease')) ?? ''} ${(await read('/proc/version')) ?? ''}`;
  if (/microsoft|wsl/i.test(release)) return true;
  return (
    (await platform.exists('/proc/sys/fs/binfmt_misc/WSLInterop')) ||
    (await platform.exists('/proc/sys/fs/binfmt_misc/WSLInterop-late'))
  );
}

/** os-release's ID and VERSION_ID (else VERSION_CODENAME), as cloud-init's get_linux_distro gives them. */
async function osRelease(platform: Platform): Promise<{ id: string; version: string }> {
  const text = (await platform.readTextIfExists('/etc/os-release').catch(() => undefined)) ?? '';
  const get = (k: string) =>
    new RegExp(`^${k}=(.*)$`, 'm')
      .exec(text)?.[1]
      ?.trim()
      .replace(/^(["'])(.*)\1$/, '$2') ?? '';
  return { id: get('ID'), version: get('VERSION_ID') || get('VERSION_CODENAME') };
}

/** upstream's candidate_user_data_file_names, most precedent first. */
export function userDataFileNames(instance: string, id: string, version: string): string[] {
  return [`${instance}.user-data`, `${id}-${version}.user-data`, `${id}-all.user-data`, 'default.user-data'];
}

async function isDir(platform: Platform, path: string): Promise<boolean> {
  return platform.listDir(path).then(
    () => true,
    () => false,
  );
}

async function readText(platform: Platform, path: string): Promise<string | undefined> {
  return platform.readTextIfExists(path).catch(() => undefined);
}

/** The meta-data: <instance>.meta-data in .ubuntupro/.cloud-init, else in .cloud-init; it must carry an instance-id. */
async function loadMetadata(
  platform: Platform,
  dirs: Array<string | undefined>,
  instance: string,
): Promise<Record<string, unknown>> {
  for (const dir of dirs) {
    if (!dir) continue;
    const path = posix.join(dir, `${instance}.meta-data`);
    const text = await readText(platform, path);
    if (text === undefined) continue;
    let md: unknown;
    try {
      md = readYaml(text, path);
    } catch {
      md = {}; // load_yaml's default here
    }
    if (md === null || typeof md !== 'object' || Array.isArray(md) || !('instance-id' in md))
      throw new SourceError(NAME, `metadata at ${path} does not contain instance-id key`);
    return md as Record<string, unknown>;
  }
  return { 'instance-id': DEFAULT_WSL_INSTANCE_ID };
}

/** The most precedent user-data file in SEED, names compared case-insensitively as Windows does. */
async function findUserDataFile(platform: Platform, seed: string, names: string[]): Promise<string> {
  const entries = await platform.listDir(seed);
  if (entries.length === 0) throw new SourceError(NAME, `${seed} directory is empty`);
  const byFolded = new Map(entries.map((e) => [e.toLowerCase(), e]));
  for (const n of names) {
    const hit = byFolded.get(n.toLowerCase());
    if (hit) return posix.join(seed, hit);
  }
  throw new SourceError(NAME, `${seed} doesn't contain any of the expected user-data files (${names.join(', ')})`);
}

/** Whether landscape-config knows --installation-request-id (upstream asks its --help); false when it cannot run. */
async function landscapeSupportsRequestId(ctx: CrawlContext): Promise<boolean> {
  try {
    const r = await ctx.platform.run(['landscape-config', '--help'], { allowFailure: true, timeoutMs: 30_000 });
    if (r.code !== 0) throw new Error(`exit code ${r.code}`);
    return r.stdout.includes('--installation-request-id');
  } catch (err) {
    ctx.log.warn(`Unable to verify if landscape-client supports installation_request_id: ${describeError(err)}`);
    return false;
  }
}

export const wslSource: Datasource = {
  name: NAME,
  kind: 'local',
  async detect(ctx: DetectContext) {
    // ds-identify's WSL virt and drvfs mounts, and upstream's wslpath; the Windows side is asked in crawl().
    if (!(await isWsl(ctx.platform))) return false;
    if ((await readDrvfsMounts(ctx.platform)).length === 0) return false;
    return ctx.platform.exists(WSLPATH);
  },
  async crawl(ctx) {
    const p = ctx.platform;
    if (!(await p.exists(WSLPATH)))
      throw new SourceError(NAME, `no WSL command ${WSLPATH} found; this is not a WSL instance`);
    const instance = await wslInstanceName(p, ctx.settings, ctx.env);
    const home = await findWindowsHome(p, ctx.log, await readDrvfsMounts(p), ctx.settings);
    const seedDir = posix.join(home, '.cloud-init');
    const proDir = posix.join(home, '.ubuntupro', '.cloud-init');
    const seed = (await isDir(p, seedDir)) ? seedDir : undefined;
    const pro = (await isDir(p, proDir)) ? proDir : undefined;
    if (!seed) ctx.log.debug(`WSL: cloud-init user data dir ${seedDir} doesn't exist`);
    const metadata = await loadMetadata(p, [pro, seed], instance);
    const os = await osRelease(p);
    let agent: ConfigData | undefined;
    let user: ConfigData | undefined;
    // Ubuntu Pro for WSL's data, on Ubuntu only.
    if (os.id === 'ubuntu' && pro) {
      const iid = (await landscapeSupportsRequestId(ctx)) ? String(metadata['instance-id']) : '';
      const landscapePath = posix.join(pro, `${instance}.user-data`);
      const landscape = await readText(p, landscapePath);
      if (landscape !== undefined) {
        ctx.log.debug(
          `WSL: Landscape configuration found: ${landscapePath}. Organization policy ignores any local user-data in ${seedDir}`,
        );
        user = configData(landscape, landscapePath, iid);
      }
      const agentPath = posix.join(pro, 'agent.yaml');
      const agentText = await readText(p, agentPath);
      if (agentText !== undefined) agent = configData(agentText, agentPath, iid);
    }
    let userError: string | undefined;
    if (!user && seed) {
      try {
        const file = await findUserDataFile(p, seed, userDataFileNames(instance, os.id, os.version));
        user = configData((await readText(p, file)) ?? '', file, '');
      } catch (err) {
        if (!(err instanceof SourceError)) throw err;
        userError = err.message;
        (agent ? ctx.log.info.bind(ctx.log) : ctx.log.error.bind(ctx.log))(
          `Unable to load any user-data file in ${seed}: ${err.message}`,
        );
      }
    }
    if (!user && !agent)
      throw new SourceError(NAME, userError ?? `no user data: neither ${seedDir} nor Ubuntu Pro's ${proDir} has any`);
    const userData = mergeAgentAndUserData(agent, user, ctx.log);
    const data: InstanceData = {
      instanceId: String(metadata['instance-id']),
      cloudName: 'wsl',
      platform: 'wsl',
      subplatform: 'unknown',
      publicKeys: [],
      metadata,
    };
    if (typeof metadata['local-hostname'] === 'string') data.localHostname = metadata['local-hostname'];
    if (userData !== undefined) data.userData = Buffer.from(userData, 'utf8');
    return data;
  },
};
