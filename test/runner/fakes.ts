// Fake sources and modules for runner tests: they record what ran and read a tiny seed folder in the sandbox root.
import { readYaml } from '../../src/config/read-yaml';
import type { CloudConfig, Frequency, Module, ModuleContext, ModuleStage } from '../../src/modules/module';
import type { Datasource, InstanceData } from '../../src/sources/datasource';
import type { RunnerDeps } from '../../src/runner/runner-deps';
import { buildFacts, KILN_CLOUD_INIT_VERSION } from '../../src/build-info';

/** A local source that is present when /seed/fake/instance-id exists in the root. */
export function fakeSource(name = 'Fake', kind: 'local' | 'network' = 'local', dir = '/seed/fake'): Datasource {
  return {
    name,
    kind,
    async detect(ctx) {
      return ctx.platform.exists(`${dir}/instance-id`);
    },
    async crawl(ctx): Promise<InstanceData> {
      const iid = (await ctx.platform.readText(`${dir}/instance-id`)).trim();
      const user = await ctx.platform.readTextIfExists(`${dir}/user-data`);
      const vendor = await ctx.platform.readTextIfExists(`${dir}/vendor-data`);
      const ds = await ctx.platform.readTextIfExists(`${dir}/ds-config`);
      return {
        instanceId: iid,
        cloudName: 'fakecloud',
        platform: 'fake',
        subplatform: `seed-dir (${dir})`,
        localHostname: 'fakehost',
        region: 'r1',
        publicKeys: ['ssh-ed25519 AAAA test'],
        adminPassword: 'adm1nSecretPw',
        ...(user !== undefined ? { userData: Buffer.from(user) } : {}),
        ...(vendor !== undefined ? { vendorData: Buffer.from(vendor) } : {}),
        ...(ds !== undefined ? { sourceConfig: readYaml(ds, `${dir}/ds-config`) as Record<string, unknown> } : {}),
        metadata: { 'instance-id': iid, admin_password: 'hunter22secret' },
      };
    },
  };
}

export function brokenSource(name = 'Broken'): Datasource {
  return {
    name,
    kind: 'local',
    async detect() {
      return true;
    },
    async crawl() {
      throw new Error('metadata is corrupt');
    },
  };
}

export interface Recorder {
  runs: string[];
}

export function recordingModule(
  rec: Recorder,
  name: string,
  stage: ModuleStage,
  frequency: Frequency,
  opts: { fail?: boolean; activateBy?: string[]; distros?: string[] | 'all'; warn?: string } = {},
): Module {
  return {
    name,
    stage,
    frequency,
    distros: opts.distros ?? 'all',
    activateBy: opts.activateBy ?? [],
    async run(ctx: ModuleContext, cfg: CloudConfig) {
      rec.runs.push(name);
      ctx.log.debug(`${name} sees admin password ${ctx.instance?.adminPassword ?? 'none'}`);
      if (opts.warn) ctx.recoverable('WARNING', opts.warn);
      await ctx.output(`${name} ran with ${JSON.stringify(cfg[name] ?? null)}\n`);
      if (opts.fail) throw new Error(`${name} exploded`);
    },
  };
}

/** Dependencies with the given sources and modules; user data is plain YAML cloud-config. */
export function fakeDeps(
  sources: Datasource[],
  modules: Module[],
  extra: Partial<RunnerDeps> = {},
): RunnerDeps & { network: Array<string | undefined> } {
  const network: Array<string | undefined> = [];
  let t = Date.UTC(2026, 0, 1, 0, 0, 0);
  return {
    network,
    sources,
    modules,
    async processUserData(input) {
      const text = Buffer.from(input.raw).toString('utf8');
      if (!text.startsWith('#cloud-config')) return { cloudConfig: {} };
      return { cloudConfig: (readYaml(text, 'user data') ?? {}) as Record<string, unknown> };
    },
    async selectAndRenderNetwork(input) {
      network.push(input.instance?.instanceId);
      return { written: [] };
    },
    finder: { find: async () => [] },
    embeddedConfig: buildFacts.defaultCloudConfig,
    cloudInitVersion: KILN_CLOUD_INIT_VERSION,
    now: () => new Date((t += 10)),
    kernelCmdline: async () => '',
    uptime: async () => 12.5,
    ...extra,
  };
}
