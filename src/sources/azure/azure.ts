// Azure: detected by the chassis asset tag; the provisioning media's ovf-env.xml (UDF or ISO9660), IMDS, and the
// wireserver's ready report.
import type { FoundFilesystem } from '../../devices/filesystem-finder';
import { HttpClient, HttpError } from '../../util/http';
import { budgetSignal } from '../../util/timeout-signal';
import type { ActivateContext, CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { boolSetting, readUrlSettings, type UrlSettings } from '../settings';
import { SourceError } from '../source-error';
import { fetchImds, type ImdsResult } from './imds';
import { failureReport, KvpTelemetry, successReport } from './kvp';
import { DEFAULT_LOG_FILE, pushLogToKvp, reportBootTelemetry, reportSystemInfo } from './kvp-boot-telemetry';
import { azureImdsNetworkConfig } from './imds-network';
import { minimalOvfEnv, NotAzureOvfEnv, parseOvfEnv, redactOvfPassword, type OvfEnv } from './ovf-env';
import { wireserverCertificateKeys } from './certificates';
import { AzureLease } from './pool-lease';
import { azureReason, REPORTED_READY_MARKER, reprovision, type PpsSettings } from './pps';
import {
  fetchGoalState,
  findWireserver,
  postHealth,
  reportFailure,
  type GoalState,
  type WireserverOptions,
} from './wireserver';
import { subplatformSource } from '../source-description';
import { azureMock } from './mock-answers';
import { describeError } from '../../util/errors';

export const AZURE_CHASSIS_ASSET_TAG = '7783-7084-3265-9085-8269-3286-77';
export const AZURE_SEED_DIR = '/var/lib/cloud/seed/azure';
/** Where walinuxagent (and cloud-init) keep ovf-env.xml, so that a reboot without the media still finds it. */
export const AZURE_DATA_DIR = '/var/lib/waagent';
export const AZURE_DEFAULTS: UrlSettings = {
  metadataUrls: ['http://169.254.169.254'],
  timeout: 2,
  maxWait: 300,
  retries: 10,
};
/** The device cloud-init tries first for the provisioning media. */
const PROVISIONING_DEV = '/dev/sr0';
/** Hyper-V's entropy for the guest, which cloud-init hands on as metadata random_seed. */
const ENTROPY_SOURCE = '/sys/firmware/acpi/tables/OEM0';
const RESOURCE_DISK = '/dev/disk/cloud/azure_resource';

/** The preprovisioning (PPS) kinds Azure names; 'Unknown' when a ready report was already sent for a pool VM. */
export type PpsType = 'None' | 'Running' | 'Savable' | 'OS Disk' | 'Unknown';

/**
 * Whether health reports go to the wireserver: the `report_ready` setting, and never where the platform tells the
 * host nothing (a dry run: a report changes what Azure believes about the VM, which --dry-run promises not to do).
 */
function reportsToFabric(ctx: CrawlContext): boolean {
  if (!tellsHost(ctx)) return false;
  return boolSetting(ctx.settings, 'report_ready', true);
}

/** Whether this run may tell the host anything: the platform has host reports (a dry run has none). */
function tellsHost(ctx: CrawlContext): boolean {
  return ctx.platform.hostReports !== undefined;
}

/** What cloud-init's is_platform_viable accepts: the chassis asset tag, or a seeded ovf-env.xml. */
async function platformViable(ctx: DetectContext): Promise<boolean> {
  if ((ctx.dmi.chassis_asset_tag ?? '').trim() === AZURE_CHASSIS_ASSET_TAG) return true;
  return ctx.platform.exists(`${AZURE_SEED_DIR}/ovf-env.xml`).catch(() => false);
}

/**
 * Provisioning media found by the finder: any ISO9660/UDF filesystem holding ovf-env.xml, rd_rdfe_* labels and /dev/sr0
 * first.
 */
async function provisioningMedia(ctx: DetectContext): Promise<FoundFilesystem[]> {
  const found = await ctx.finder.find({
    labels: [],
    anyLabel: true,
    fsTypes: ['udf', 'iso9660'],
    mustContain: ['ovf-env.xml'],
  });
  const rank = (f: FoundFilesystem) => (f.device === PROVISIONING_DEV ? 0 : f.label.startsWith('rd_rdfe_') ? 1 : 2);
  return found
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
    .map((x) => x.f);
}

interface OvfSource {
  env: OvfEnv;
  raw: Uint8Array;
  /** cloud-init's seed: the folder or device it came from. */
  seed: string;
  device?: string;
}

/** The first Azure ovf-env.xml in cloud-init's order: seed folder, provisioning media, the copy in data_dir. */
async function findOvf(ctx: CrawlContext, dataDir: string): Promise<OvfSource | undefined> {
  const tryBytes = (raw: Uint8Array | undefined, seed: string, device?: string): OvfSource | undefined => {
    if (!raw) return undefined;
    try {
      return { env: parseOvfEnv(raw, `${seed}/ovf-env.xml`), raw, seed, ...(device ? { device } : {}) };
    } catch (err) {
      if (err instanceof NotAzureOvfEnv) {
        ctx.log.debug(`Azure: ${err.message}`);
        return undefined;
      }
      throw err;
    }
  };
  const seeded = tryBytes(await readIfExists(ctx, `${AZURE_SEED_DIR}/ovf-env.xml`), AZURE_SEED_DIR);
  if (seeded) return seeded;
  for (const fs of await provisioningMedia(ctx)) {
    const found = tryBytes(await fs.tree.readFile('ovf-env.xml'), fs.device, fs.device);
    if (found) return found;
  }
  return tryBytes(await readIfExists(ctx, `${dataDir}/ovf-env.xml`), dataDir);
}

async function readIfExists(ctx: DetectContext, path: string): Promise<Uint8Array | undefined> {
  if (!(await ctx.platform.exists(path).catch(() => false))) return undefined;
  return ctx.platform.readFile(path);
}

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** compute.osProfile.KEY from IMDS, when it is a non-empty string. */
function osProfile(imds: Record<string, unknown>, key: string): string | undefined {
  const v = obj(obj(imds.compute).osProfile)[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * True when KEY reads as an OpenSSH public key line (cloud-init refuses IMDS keys otherwise and asks the wireserver).
 */
function looksOpenSsh(key: string): boolean {
  if (key.trim().includes('\r\n')) return false;
  return /^(?:\S+\s+)?(ssh-(rsa|dss|ed25519)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com|ssh-(rsa|ed25519)-cert-v01@openssh\.com)\s+[A-Za-z0-9+/=]+/.test(
    key.trim(),
  );
}

/** IMDS keys when IMDS has them all in OpenSSH form, else undefined (then OVF's keys count). */
function imdsKeys(imds: Record<string, unknown>): string[] | undefined {
  const list = obj(imds.compute).publicKeys;
  if (!Array.isArray(list)) return undefined;
  const keys = list.map((k) => obj(k).keyData).filter((k): k is string => typeof k === 'string');
  if (keys.length !== list.length || keys.some((k) => !looksOpenSsh(k))) return undefined;
  return keys;
}

/** PPS from OVF and IMDS as cloud-init's _determine_pps_type orders them. */
export function ppsType(env: OvfEnv | undefined, imds: Record<string, unknown>, reportedReadyBefore: boolean): PpsType {
  if (reportedReadyBefore) return 'Unknown';
  const fromImds = obj(obj(imds.extended).compute).ppsType;
  const ovfType = env?.preprovisionedVmType;
  if (ovfType === 'Savable' || fromImds === 'Savable') return 'Savable';
  if (ovfType === 'OS Disk' || fromImds === 'OS Disk') return 'OS Disk';
  if (env?.preprovisionedVm === true || ovfType === 'Running' || fromImds === 'Running') return 'Running';
  return 'None';
}

/**
 * True when PREVIOUS is CURRENT with its first three groups byte-swapped (Azure's two spellings of one SMBIOS UUID).
 */
export function isByteSwapped(previous: string, current: string): boolean {
  if (previous === current) return false;
  const parts = current.split('-');
  if (parts.length !== 5) return false;
  const swap = (s: string) => (s.match(/../g) ?? []).reverse().join('');
  return (
    previous ===
    [swap(parts[0] as string), swap(parts[1] as string), swap(parts[2] as string), parts[3], parts[4]].join('-')
  );
}

/**
 * cloud-init's _iid: the lower-cased system UUID, unless the previous boot's id is the same UUID in another case or
 * byte order.
 */
async function instanceId(ctx: CrawlContext, imds: Record<string, unknown>): Promise<string> {
  const uuid = (ctx.dmi.product_uuid ?? '').trim().toLowerCase();
  const vmId = obj(imds.compute).vmId;
  const iid = uuid || (typeof vmId === 'string' && vmId ? vmId.toLowerCase() : '');
  if (!iid)
    throw new SourceError(
      'Azure',
      'no system UUID in /sys/class/dmi/id/product_uuid and no compute.vmId from IMDS to name the instance',
    );
  const previous = (
    (await ctx.platform.readTextIfExists('/var/lib/cloud/data/instance-id').catch(() => undefined)) ?? ''
  ).trim();
  if (previous && (previous.toLowerCase() === iid || isByteSwapped(previous.toLowerCase(), iid))) return previous;
  return iid;
}

/**
 * A SHA-512 crypt hash of PASSWORD by the target's openssl (as cloud-init's crypt with a '$6$' salt), or undefined when
 * openssl cannot.
 */
async function hashPassword(ctx: CrawlContext, password: string): Promise<string | undefined> {
  const r = await ctx.platform
    .run(['openssl', 'passwd', '-6', '-stdin'], {
      input: `${password}\n`,
      allowFailure: true,
      timeoutMs: 10_000,
      secrets: [password],
    })
    .catch(() => undefined);
  const hash = r?.code === 0 ? r.stdout.trim() : '';
  if (!hash.startsWith('$6$')) {
    ctx.log.warn('Azure: openssl passwd -6 is not available in the target; the password from ovf-env.xml is not set');
    return undefined;
  }
  return hash;
}

/**
 * The config cloud-init's read_azure_ovf derives (default user, password logins), with IMDS's admin user name and
 * password setting over OVF's.
 */
async function sourceConfig(
  ctx: CrawlContext,
  env: OvfEnv | undefined,
  imds: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const cfg: Record<string, unknown> = {};
  const user: Record<string, unknown> = {};
  if (env) {
    if (env.disableSshPasswordAuthentication !== undefined) cfg.ssh_pwauth = !env.disableSshPasswordAuthentication;
    else if (env.password) cfg.ssh_pwauth = true;
    if (env.username) user.name = env.username;
    if (env.password) {
      const hash = env.password === 'REDACTED' ? undefined : await hashPassword(ctx, env.password);
      if (env.password === 'REDACTED' || hash) user.lock_passwd = false;
      if (hash) user.hashed_passwd = hash;
    }
  }
  const imdsUser = osProfile(imds, 'adminUsername');
  if (imdsUser) user.name = imdsUser;
  if (Object.keys(user).length) cfg.system_info = { default_user: user };
  // IMDS's disablePasswordAuthentication, when it has one, decides password logins over OVF's (25.1's
  // _disable_password_from_imds: only the string "true" disables).
  const imdsDisable = obj(obj(imds.compute).osProfile).disablePasswordAuthentication;
  if (imdsDisable !== undefined) cfg.ssh_pwauth = imdsDisable !== 'true';
  // The resource (ephemeral) disk is partitioned and formatted only when it is there, as cloud-init does.
  if (await ctx.platform.exists(RESOURCE_DISK).catch(() => false)) {
    cfg.disk_setup = { ephemeral0: { table_type: 'gpt', layout: [100], overwrite: true } };
    cfg.fs_setup = [{ filesystem: 'ext4', device: 'ephemeral0.1' }];
  }
  return cfg;
}

export const azureSource: Datasource = {
  mock: azureMock,
  name: 'Azure',
  kind: 'network',
  describe: (data, cls) => `${cls} [seed=${subplatformSource(data)}]`,
  async detect(ctx: DetectContext) {
    if (await platformViable(ctx)) return true;
    // ds-identify also accepts a Hyper-V guest with a provisioning medium labelled rd_rdfe_*.
    if ((ctx.dmi.sys_vendor ?? '') !== 'Microsoft Corporation') return false;
    return (await provisioningMedia(ctx)).some((f) => f.label.startsWith('rd_rdfe_'));
  },
  // cloud-init runs Azure in init-local with its own DHCP lease whenever the platform is viable.
  async localEvidence(ctx: DetectContext) {
    return platformViable(ctx);
  },
  async activate(ctx: ActivateContext) {
    await activateAzure(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    const s = readUrlSettings('Azure', ctx.settings, AZURE_DEFAULTS, ctx.baseUrl);
    const dataDir = typeof ctx.settings.data_dir === 'string' ? ctx.settings.data_dir : AZURE_DATA_DIR;
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    const signal = budgetSignal(s.maxWait * 1000, ctx.signal);
    const wireOpts = async (): Promise<WireserverOptions> => ({
      client,
      log: ctx.log,
      baseUrl:
        ctx.baseUrl ??
        (typeof ctx.settings.wireserver_url === 'string'
          ? ctx.settings.wireserver_url.replace(/\/+$/, '')
          : `http://${await findWireserver(ctx.platform, ctx.log)}`),
      timeoutMs: num(ctx.settings.report_ready_timeout, 60) * 1000,
      retrySleepMs: num(ctx.settings.report_ready_retry_sleep, 5) * 1000,
      deadlineMs: num(ctx.settings.report_ready_max_wait, 1200) * 1000,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    // KVP telemetry where the system config asks for it (a `reporting` handler of type hyperv), never in a dry run.
    const kvp = await KvpTelemetry.fromConfig(ctx.platform, ctx.config, ctx.log);
    if (kvp) await bootTelemetry(ctx, kvp);
    // One lease at a time, which the preprovisioned-VM flow may drop and take again on another NIC; one not on
    // the primary NIC is an error reported to the host (KVP), and the crawl goes on, as 25.1's.
    const lease = new AzureLease(ctx.network, ctx.log, {
      wireserverAddress: async () => new URL((await wireOpts()).baseUrl).hostname,
      report: async (nic, routes, wireserver) => {
        const reason = 'failure to find primary DHCP interface';
        const message = `Azure: ${reason}: the DHCP lease on ${nic} routes ${routes.length ? routes.map((r) => `${r.destination} via ${r.gateway}`).join(', ') : 'nothing'} (option 121), neither IMDS nor the wireserver ${wireserver}`;
        ctx.log.error(message);
        kvp?.diagnostic(message);
        const pythonRoutes = routes.length
          ? `[${routes.map((r) => `('${r.destination}', '${r.gateway}')`).join(', ')}]`
          : 'None';
        kvp?.writeKey(
          'PROVISIONING_REPORT',
          failureReport(reason, (ctx.dmi.product_uuid ?? '').trim().toLowerCase(), new Date(), 'kiln', [
            `interface=${nic}`,
            `static_routes=${pythonRoutes}`,
          ]),
        );
      },
    });
    try {
      await lease.up();
      try {
        // A broken ovf-env.xml fails the crawl, and is reported to the fabric like any other failure.
        const ovf = await findOvf(ctx, dataDir);
        const where = `Azure: provisioning metadata ${ovf ? `in ${ovf.seed}` : 'not found on any medium; IMDS only'}`;
        ctx.log.debug(where);
        kvp?.diagnostic(where);
        return await crawlWithNetwork(ctx, s, ovf, client, signal, dataDir, wireOpts, lease, kvp);
      } catch (err) {
        // Newer cloud-init's report_failure_to_host: the reason as an encoded report under PROVISIONING_REPORT.
        kvp?.diagnostic(`Azure: provisioning failed: ${describeError(err)}`);
        kvp?.writeKey(
          'PROVISIONING_REPORT',
          failureReport(describeError(err), (ctx.dmi.product_uuid ?? '').trim().toLowerCase(), new Date()),
        );
        // Tell the fabric, so that the portal shows a failed deployment instead of waiting (cloud-init's
        // _report_failure).
        if (
          err instanceof SourceError &&
          reportsToFabric(ctx) &&
          (ctx.dmi.chassis_asset_tag ?? '').trim() === AZURE_CHASSIS_ASSET_TAG
        ) {
          if (kvp) await pushLogToKvp(ctx.platform, kvp, ctx.log, logFileOf(ctx.config));
          await reportFailure(await wireOpts()).catch((e: unknown) =>
            ctx.log.warn(`Azure: could not report the failure to the fabric: ${describeError(e)}`),
          );
        }
        throw err;
      }
    } finally {
      await lease.down();
      await client.close();
      await kvp?.flush();
    }
  },
};

/** The log cloud-init pushes to KVP: its def_log_file. */
function logFileOf(config: Record<string, unknown>): string {
  return typeof config.def_log_file === 'string' && config.def_log_file ? config.def_log_file : DEFAULT_LOG_FILE;
}

/** cloud-init's _get_data opens with boot telemetry and system information; either failing is a warning only. */
async function bootTelemetry(ctx: CrawlContext, kvp: KvpTelemetry): Promise<void> {
  await reportBootTelemetry(ctx.platform, kvp).catch((err: unknown) =>
    ctx.log.warn(`Failed to get boot telemetry: ${describeError(err)}`),
  );
  await reportSystemInfo(ctx.platform, kvp).catch((err: unknown) =>
    ctx.log.warn(`Failed to get system information: ${describeError(err)}`),
  );
}

/** cloud-init's activate pushes the log to KVP once more, after user data was consumed (init stage, every boot). */
async function activateAzure(ctx: ActivateContext): Promise<void> {
  if (ctx.platform.os !== 'linux') return;
  const config = ctx.systemConfig ?? {};
  const kvp = await KvpTelemetry.fromConfig(ctx.platform, config, ctx.log);
  if (!kvp) return;
  await pushLogToKvp(ctx.platform, kvp, ctx.log, logFileOf(config));
  await kvp.flush();
}

function num(v: unknown, fallback: number): number {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : fallback;
}

async function crawlWithNetwork(
  ctx: CrawlContext,
  s: UrlSettings,
  ovf: OvfSource | undefined,
  client: HttpClient,
  signal: AbortSignal | undefined,
  dataDir: string,
  wireOpts: () => Promise<WireserverOptions>,
  lease: AzureLease,
  kvp?: KvpTelemetry,
): Promise<InstanceData> {
  const base = s.metadataUrls[0] ?? 'http://169.254.169.254';
  const readImds = (budget: AbortSignal | undefined) =>
    fetchImds({
      client,
      log: ctx.log,
      baseUrl: base,
      timeoutMs: s.timeout * 1000,
      retries: s.retries,
      ...(budget ? { signal: budget } : {}),
    });
  let result: ImdsResult = await readImds(signal);
  if (!result.metadata && !ovf)
    throw new SourceError(
      'Azure',
      `no ovf-env.xml on any provisioning medium and no IMDS (${result.error ?? 'no answer'})`,
    );
  // Where the provisioning data came from (cloud-init's seed): kept when a pool VM gets the customer's ovf-env.xml.
  const subplatform = ovf ? `${ovf.device ? 'config-disk' : 'seed-dir'} (${ovf.seed})` : 'imds (IMDS)';
  const pps = ppsType(
    ovf?.env,
    result.metadata ?? {},
    await ctx.platform.exists(REPORTED_READY_MARKER).catch(() => false),
  );
  kvp?.diagnostic(`Azure: IMDS ${result.metadata ? 'read' : `not read (${result.error ?? 'no answer'})`}`);
  // The medium is ejected once, before the first ready report (the pool's, or the final one).
  let mediumToEject = ovf?.device?.startsWith('/dev/') ? ovf.device : undefined;
  const ready = async (opts: WireserverOptions, goal: GoalState) => {
    if (mediumToEject) {
      // Azure ejects nothing itself: cloud-init ejects the provisioning medium before it reports ready.
      await ctx.platform
        .run(['eject', mediumToEject], { allowFailure: true, timeoutMs: 10_000 })
        .catch(() => undefined);
      mediumToEject = undefined;
    }
    // cloud-init pushes its log to KVP before each health report (_post_health_report).
    if (kvp) await pushLogToKvp(ctx.platform, kvp, ctx.log, logFileOf(ctx.config));
    await postHealth(opts, goal, 'Ready');
  };
  if (pps !== 'None') {
    ctx.log.info(`Azure: preprovisioned VM (PPS type ${pps})`);
    kvp?.diagnostic(`Azure: PPS type: ${pps}`);
    const reprovisioned = await reprovisionPoolVm(ctx, pps, { client, base, lease, kvp, wireOpts, ready });
    if (reprovisioned) {
      ovf = { ...reprovisioned, seed: ovf?.seed ?? 'IMDS' };
      // IMDS again, with a budget of its own: it describes the customer's VM now.
      result = await readImds(budgetSignal(s.maxWait * 1000, ctx.signal));
    }
  }
  const imds = result.metadata ?? {};
  const metadata: Record<string, unknown> = {
    ...(ovf?.env.hostname ? { 'local-hostname': ovf.env.hostname } : {}),
    imds,
  };
  const hostname = osProfile(imds, 'computerName');
  if (hostname) metadata['local-hostname'] = hostname;
  // 25.1 no longer copies disablePasswordAuthentication into the metadata as disable_password (22.4 did): it sets
  // ssh_pwauth from it (sourceConfig).
  const disablePassword = obj(obj(imds.compute).osProfile).disablePasswordAuthentication;
  const seed = await readIfExists(ctx, ENTROPY_SOURCE).catch(() => undefined);
  if (seed?.length) metadata.random_seed = Buffer.from(seed).toString('base64');
  const iid = await instanceId(ctx, imds);
  metadata['instance-id'] = iid;

  let userData = ovf?.env.customData;
  if (!userData || userData.length === 0) {
    const fromImds = obj(imds.compute).userData;
    if (typeof fromImds === 'string' && fromImds.trim()) {
      const compact = fromImds.replace(/\s+/g, '');
      if (/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) userData = new Uint8Array(Buffer.from(compact, 'base64'));
      else ctx.log.warn('Azure: compute.userData from IMDS is not base64; ignored');
    }
  }

  const fromImds = imdsKeys(imds);
  // Keys by value come straight from ovf-env.xml; keys by certificate fingerprint need the wireserver's certificates.
  const publicKeys = fromImds ?? (ovf?.env.publicKeys ?? []).map((k) => k.value).filter((v) => v !== '');
  const byFingerprint = fromImds
    ? []
    : (ovf?.env.publicKeys ?? [])
        .filter((k) => !k.value && k.fingerprint)
        .map((k) => (k.fingerprint as string).toUpperCase());

  if (reportsToFabric(ctx)) {
    try {
      const opts = await wireOpts();
      opts.log.info('Azure: registering with the wireserver (goal state)');
      const goal = await fetchGoalState(opts);
      if (byFingerprint.length && goal.certificatesUrl) {
        try {
          const keys = await wireserverCertificateKeys({
            platform: ctx.platform,
            client,
            log: ctx.log,
            url: goal.certificatesUrl,
            timeoutMs: opts.timeoutMs,
            ...(ctx.signal ? { signal: ctx.signal } : {}),
          });
          for (const fp of byFingerprint) {
            const key = keys.get(fp);
            if (key) publicKeys.push(key);
            else ctx.log.warn(`Azure: ovf-env.xml's key fingerprint ${fp} is not among the wireserver's certificates`);
          }
        } catch (err) {
          ctx.log.warn(
            `Azure: could not read the SSH keys given by fingerprint from the wireserver: ${describeError(err)}`,
          );
        }
      } else if (byFingerprint.length)
        ctx.log.warn(
          `Azure: ${byFingerprint.length} SSH key(s) given by fingerprint, but the goal state names no certificates`,
        );
      await ready(opts, goal);
      ctx.log.info('Azure: reported ready to the fabric');
      kvp?.diagnostic('Azure: reported ready to the fabric');
      kvp?.writeKey('PROVISIONING_REPORT', successReport(iid, new Date()));
      await ctx.platform.remove(REPORTED_READY_MARKER).catch(() => undefined);
    } catch (err) {
      ctx.log.warn(
        `Azure: could not report ready to the fabric (the VM may be shown as still provisioning): ${describeError(err)}`,
      );
      kvp?.diagnostic(
        `Error communicating with Azure fabric; You may experience connectivity issues: ${describeError(err)}`,
      );
    }
  } else {
    ctx.log.info(`Azure: no ready report to the wireserver (${tellsHost(ctx) ? 'report_ready is off' : 'dry run'})`);
    if (byFingerprint.length)
      ctx.log.warn(
        `Azure: ${byFingerprint.length} SSH key(s) given by fingerprint are not fetched without the wireserver exchange`,
      );
  }

  // walinuxagent expects its copy in data_dir (folder 0700, file 0600), the password replaced; with IMDS alone
  // cloud-init writes a minimal one from IMDS's user and host name.
  const imdsUser = osProfile(imds, 'adminUsername');
  const keep = ovf
    ? redactOvfPassword(Buffer.from(ovf.raw).toString('utf8'))
    : imdsUser && hostname
      ? minimalOvfEnv(imdsUser, hostname, disablePassword === 'true')
      : undefined;
  if (keep !== undefined) {
    await ctx.platform.mkdir(dataDir, { mode: 0o700 });
    await ctx.platform.writeFile(`${dataDir}/ovf-env.xml`, keep, { mode: 0o600 });
  }

  const compute = obj(imds.compute);
  const data: InstanceData = {
    instanceId: iid,
    cloudName: 'azure',
    platform: 'azure',
    subplatform,
    publicKeys,
    metadata,
    sourceConfig: await sourceConfig(ctx, ovf?.env, imds),
  };
  const local = metadata['local-hostname'];
  if (typeof local === 'string' && local) data.localHostname = local;
  if (typeof compute.location === 'string' && compute.location) data.region = compute.location;
  if (typeof compute.platformFaultDomain === 'string' && compute.platformFaultDomain)
    data.availabilityZone = compute.platformFaultDomain;
  if (userData?.length) data.userData = userData;
  if (ovf?.env.password && ovf.env.password !== 'REDACTED') data.adminPassword = ovf.env.password;
  if (boolSetting(ctx.settings, 'apply_network_config', true) && imds.network) {
    try {
      data.networkConfig = { format: 'v2', config: azureImdsNetworkConfig(imds.network, await netDrivers(ctx)) };
    } catch (err) {
      ctx.log.error(`Azure: no network config from IMDS (the fallback applies): ${describeError(err)}`);
    }
  }
  return data;
}

/** ethN → driver name from /sys/class/net/ethN/device/driver, for the hv_netvsc match cloud-init adds. */
async function netDrivers(ctx: CrawlContext): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (!ctx.platform.readLink) return out;
  const names = await ctx.platform.listDir('/sys/class/net').catch(() => [] as string[]);
  for (const name of names.filter((n) => /^eth\d+$/.test(n))) {
    const target = await ctx.platform.readLink(`/sys/class/net/${name}/device/driver`).catch(() => undefined);
    if (target) out[name] = target.split('/').pop() ?? '';
  }
  return out;
}

interface PoolVmTools {
  client: HttpClient;
  base: string;
  lease: AzureLease;
  kvp: KvpTelemetry | undefined;
  wireOpts: () => Promise<WireserverOptions>;
  ready: (opts: WireserverOptions, goal: GoalState) => Promise<void>;
}

/** datasource.Azure.pps_*: cloud-init's waits, and a bound where cloud-init has none (tests shorten them all). */
function ppsSettings(settings: Record<string, unknown>): PpsSettings {
  return {
    maxWaitMs: num(settings.pps_max_wait, 86_400) * 1000,
    pollIntervalMs: num(settings.pps_poll_interval, 1) * 1000,
    nicPollIntervalMs: num(settings.pps_nic_poll_interval, 0.5) * 1000,
    dhcpMaxWaitMs: num(settings.pps_dhcp_max_wait, 1200) * 1000,
  };
}

/**
 * The customer's ovf-env.xml for a pool VM (cloud-init's _reprovision), or undefined after one warning: an OS
 * Disk VM, no ready reports allowed, or a step that failed. Then the crawl goes on with the pool's data.
 */
async function reprovisionPoolVm(
  ctx: CrawlContext,
  pps: PpsType,
  t: PoolVmTools,
): Promise<{ env: OvfEnv; raw: Uint8Array } | undefined> {
  const warn = (why: string) => {
    ctx.log.warn(
      `Azure: preprovisioned VM (PPS type ${pps}) not reprovisioned: ${why}; provisioning with the data at hand`,
    );
    t.kvp?.diagnostic(`Azure: PPS type ${pps} not reprovisioned: ${why}`);
  };
  if (pps === 'OS Disk') {
    // cloud-init reports ready and sleeps until the host shuts the VM down (a year at most).
    warn('kiln does not wait for the host to shut an OS Disk pool VM down');
    return undefined;
  }
  if (pps === 'None') return undefined;
  if (!reportsToFabric(ctx)) {
    warn(
      `a pool VM is only claimed after its ready report, and ${tellsHost(ctx) ? 'report_ready is off' : 'a dry run sends none'}`,
    );
    return undefined;
  }
  try {
    const raw = await reprovision(
      {
        platform: ctx.platform,
        log: ctx.log,
        client: t.client,
        imdsBase: t.base,
        lease: t.lease,
        settings: ppsSettings(ctx.settings),
        wireserverAddress: async () => new URL((await t.wireOpts()).baseUrl).hostname,
        reportReady: async () => {
          const opts = await t.wireOpts();
          await t.ready(opts, await fetchGoalState(opts));
        },
        ...(t.kvp ? { kvp: t.kvp } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      },
      pps,
    );
    return { env: parseOvfEnv(raw, 'IMDS reprovisiondata'), raw };
  } catch (err) {
    if (!(err instanceof SourceError || err instanceof HttpError || err instanceof NotAzureOvfEnv)) throw err;
    warn(azureReason(err));
    // The rest of the crawl (IMDS, the final ready report) needs the network the flow may have left down.
    await t.lease
      .up()
      .catch((e: unknown) =>
        ctx.log.warn(`Azure: no temporary lease after the preprovisioning flow: ${describeError(e)}`),
      );
    return undefined;
  }
}
