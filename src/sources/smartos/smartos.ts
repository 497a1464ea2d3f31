// SmartOS (Joyent Triton): metadata from the host over the Joyent protocol V2, on /dev/ttyS1 in a KVM guest or the zone
// socket in an LX-brand zone; detected from DMI or the zone's kernel version (cloud-init's DataSourceSmartOS).
import { posix } from 'node:path';
import type { Platform } from '../../platform/platform';
import type { Log } from '../../util/log';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { openSerialChannel, openSocketChannel, type LineChannel } from '../../util/line-channel';
import { normalizePublicKeys } from '../public-keys';
import { SourceError } from '../source-error';
import { JoyentMetadataClient } from './joyent-metadata-client';
import { smartOsNetworkConfig } from './smartos-network';
import { subplatformSource } from '../source-description';
import { describeError } from '../../util/errors';
import { smartOsMock } from './mock-host';

export const SMARTOS_SERIAL_DEVICE = '/dev/ttyS1';
export const SMARTOS_SOCKET = '/native/.zonecontrol/metadata.sock';
const SERIAL_TIMEOUT_S = 60;
/** An LX-brand zone's `uname -v`. */
const LX_BRAND_KERNEL = 'BrandZ virtual linux';
/** cloud-init's LEGACY_USER_D: the SmartOS places the mdata tools know. */
const LEGACY_USER_D = '/var/db';

/** cloud-init's SMARTOS_ATTRIB_MAP: metadata key → (SmartOS key, strip surrounding whitespace). */
const ATTRIBUTES: Array<[string, string, boolean]> = [
  ['instance-id', 'sdc:uuid', true],
  ['local-hostname', 'hostname', true],
  ['public-keys', 'root_authorized_keys', true],
  ['user-script', 'user-script', false],
  ['legacy-user-data', 'user-data', false],
  ['user-data', 'cloud-init:user-data', false],
  ['iptables_disable', 'iptables_disable', true],
  ['motd_sys_info', 'motd_sys_info', true],
  ['availability_zone', 'sdc:datacenter_name', true],
  ['vendor-data', 'sdc:vendor-data', false],
  ['operator-script', 'sdc:operator-script', false],
  ['hostname', 'sdc:hostname', true],
  ['dns_domain', 'sdc:dns_domain', true],
];
/** cloud-init's SMARTOS_ATTRIB_JSON. */
const JSON_ATTRIBUTES: Array<[string, string]> = [
  ['network-data', 'sdc:nics'],
  ['dns_servers', 'sdc:resolvers'],
  ['routes', 'sdc:routes'],
];
/**
 * cloud-init's NO_BASE64_DECODE, including its missing comma: 'sdc:uuid' and 'user-data' run together as
 * 'sdc:uuiduser-data', so those two keys are decoded when base64_keys names them. Kept so both agree.
 */
const NO_BASE64_DECODE = [
  'iptables_disable',
  'motd_sys_info',
  'root_authorized_keys',
  'sdc:datacenter_name',
  'sdc:uuiduser-data',
  'user-script',
];

/** cloud-init's BUILTIN_CLOUD_CONFIG for KVM guests: the ephemeral disk, formatted ext4. */
const KVM_CLOUD_CONFIG = {
  disk_setup: { ephemeral0: { table_type: 'mbr', layout: false, overwrite: false } },
  fs_setup: [{ label: 'ephemeral0', filesystem: 'ext4', device: 'ephemeral0' }],
};

type SmartOsType = 'kvm' | 'lx-brand';

/** `uname -v` of the system: the running kernel's at '/', the root's /proc/sys/kernel/version for a sandbox. */
async function unameVersion(platform: Platform): Promise<string> {
  if (platform.root === '/') return platform.uname().version;
  return ((await platform.readTextIfExists('/proc/sys/kernel/version').catch(() => undefined)) ?? '').trim();
}

/** cloud-init's get_smartos_environ: an LX-brand zone by its kernel version, a KVM guest by DMI product `SmartDC…`. */
async function smartOsType(ctx: DetectContext): Promise<SmartOsType | undefined> {
  if ((await unameVersion(ctx.platform)) === LX_BRAND_KERNEL) return 'lx-brand';
  if ((ctx.dmi.product_name ?? '').startsWith('SmartDC')) return 'kvm';
  return undefined;
}

function stringSetting(settings: Record<string, unknown>, key: string, fallback: string): string {
  const v = settings[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !v.startsWith('/'))
    throw new SourceError('SmartOS', `datasource.SmartOS.${key} must be an absolute path, not ${JSON.stringify(v)}`);
  return v;
}

function timeoutSetting(settings: Record<string, unknown>): number {
  const v = settings.serial_timeout;
  if (v === undefined) return SERIAL_TIMEOUT_S;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0)
    throw new SourceError(
      'SmartOS',
      `datasource.SmartOS.serial_timeout must be a number of seconds, not ${JSON.stringify(v)}`,
    );
  return n;
}

/** Python's util.is_true. */
const isTrue = (v: string | undefined): boolean => ['true', '1', 'on', 'yes'].includes((v ?? '').trim().toLowerCase());

/**
 * cloud-init's JoyentMetadataLegacySerialClient (KVM guests): values of keys the host marks as base64 (the
 * `base64_all` key, or the comma-separated `base64_keys` key) are decoded.
 */
class LegacyBase64Keys {
  private all: boolean | undefined;
  private keys: Set<string> | undefined;
  constructor(private readonly client: JoyentMetadataClient) {}

  async encoded(key: string): Promise<boolean> {
    if (NO_BASE64_DECODE.includes(key)) return false;
    if (this.all === undefined || (!this.all && this.keys === undefined)) {
      const listed = await this.client.keys();
      this.all = listed.includes('base64_all') ? isTrue(await this.client.get('base64_all')) : false;
      if (!this.all) {
        const keys = new Set(
          listed.includes('base64_keys') ? ((await this.client.get('base64_keys')) ?? '').split(',') : [],
        );
        // cloud-init takes `b64-<key>` as naming '-<key>' (it cuts 3 characters, not 4), which no host has: so
        // b64- keys never mark anything as base64 there. Kept the same, so the same host gives the same values.
        for (const k of listed.filter((l) => l.startsWith('b64-')).map((l) => l.slice(3))) {
          if (isTrue(await this.client.get(k))) keys.add(k);
          else keys.delete(k);
        }
        this.keys = keys;
      }
    }
    return this.all || (this.keys?.has(key) ?? false);
  }
}

/** What the host holds, as cloud-init's _get_data reads it. */
async function readHost(
  client: JoyentMetadataClient,
  legacy: LegacyBase64Keys | undefined,
  log: Log,
): Promise<Record<string, unknown>> {
  const md: Record<string, unknown> = {};
  for (const [name, key, strip] of ATTRIBUTES) {
    let v = await client.get(key);
    if (v !== undefined && legacy && (await legacy.encoded(key))) {
      const text = v;
      if (text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text))
        v = Buffer.from(text, 'base64').toString('utf8');
      else log.warn(`SmartOS: failed base64 decoding key '${key}'; kept as it is`);
    }
    md[name] = v !== undefined && strip ? v.trim() : (v ?? null);
  }
  for (const [name, key] of JSON_ATTRIBUTES) md[name] = (await client.getJson(key)) ?? null;
  return md;
}

/** The cloud_dir (system_info.paths.cloud_dir, else /var/lib/cloud), where the scripts are written. */
function cloudDir(config: Record<string, unknown>): string {
  const info = config.system_info as { paths?: { cloud_dir?: unknown } } | undefined;
  const dir = info?.paths?.cloud_dir;
  return typeof dir === 'string' && dir ? dir.replace(/\/+$/, '') || '/' : '/var/lib/cloud';
}

/**
 * cloud-init's write_boot_content: no content removes the file (and the link); content is written with MODE;
 * a script without `#!` that `file` calls text/plain gets `#!/bin/bash` (cloud-init runs scripts without a
 * shell); LINK, when given, points at the file.
 */
async function writeBootContent(
  platform: Platform,
  log: Log,
  content: unknown,
  file: string,
  opts: { link?: string; shebang?: boolean; mode: number },
): Promise<void> {
  const text = typeof content === 'string' ? content : '';
  if (!text && (await platform.exists(file))) await platform.remove(file);
  if (opts.link && (await platform.readLink?.(opts.link)) !== undefined) await platform.remove(opts.link);
  if (!text) return;
  await platform.mkdir(posix.dirname(file));
  await platform.writeFile(file, text, { mode: opts.mode });
  if (opts.shebang && !text.startsWith('#!')) {
    const r = await platform
      .run(['file', '--brief', '--mime-type', file], { allowFailure: true })
      .catch((err: unknown) => ({ code: 127, stdout: '', stderr: describeError(err) }));
    if (r.code !== 0)
      log.warn(`SmartOS: could not tell the type of ${file} with file(1): ${r.stderr.trim() || `exit ${r.code}`}`);
    else if (r.stdout.trim() === 'text/plain') {
      await platform.writeFile(file, `#!/bin/bash\n${text}`, { mode: opts.mode });
      log.debug(`SmartOS: added a shebang to ${file}`);
    }
  }
  if (opts.link) {
    await platform.mkdir(posix.dirname(opts.link));
    await platform.symlink(file, opts.link);
  }
}

/**
 * cloud-init's BUILTIN_VENDOR_DATA: a boothook that installs a per-boot script running the operator and user scripts.
 */
function builtinVendorData(userScript: string, operatorScript: string, perBootDir: string): string {
  return `#cloud-boothook
#!/bin/sh
fname="${perBootDir}/01_smartos_vendor_data.sh"
mkdir -p "\${fname%/*}"
cat > "$fname" <<"END_SCRIPT"
#!/bin/sh
##
# This file is written as part of the default vendor data for SmartOS.
# The SmartOS datasource writes the listed file from the listed metadata key
#   sdc:operator-script -> ${operatorScript}
#   user-script -> ${userScript}
#
# You can view content with 'mdata-get <key>'
#
for script in "${operatorScript}" "${userScript}"; do
    [ -x "$script" ] || continue
    echo "executing '$script'" 1>&2
    "$script"
done
END_SCRIPT
chmod +x "$fname"
`;
}

async function openChannel(
  ctx: CrawlContext,
  type: SmartOsType,
  path: string,
  timeoutMs: number,
): Promise<LineChannel> {
  const host = ctx.platform.hostPath(path);
  try {
    return type === 'kvm'
      ? openSerialChannel(host, ctx.platform.makeTtyRaw?.bind(ctx.platform), ctx.log)
      : await openSocketChannel(host, timeoutMs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new SourceError('SmartOS', `no metadata ${type === 'kvm' ? 'serial port' : 'socket'} ${path}`, {
        cause: err,
      });
    throw new SourceError(
      'SmartOS',
      `cannot open the metadata ${type === 'kvm' ? 'serial port' : 'socket'} ${path}: ${describeError(err)}`,
      { cause: err },
    );
  }
}

export const smartOsSource: Datasource = {
  mock: smartOsMock,
  name: 'SmartOS',
  kind: 'local',
  /** The client: the serial device or the metadata socket. */
  describe(data, cls) {
    const source = subplatformSource(data);
    return `${cls} [client=${source.startsWith('/dev/') ? `JoyentMetadataSerialClient(device=${source}, timeout=60)` : `JoyentMetadataSocketClient(socketpath=${source})`}]`;
  },
  /**
   * ds-identify's dscheck_SmartOS: DMI product `SmartDC*`, or an LX-brand kernel with the zone's metadata socket
   * present.
   */
  async detect(ctx: DetectContext) {
    if ((ctx.dmi.product_name ?? '').startsWith('SmartDC')) return true;
    return (await unameVersion(ctx.platform)) === LX_BRAND_KERNEL && (await ctx.platform.exists(SMARTOS_SOCKET));
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    const type = await smartOsType(ctx);
    if (!type)
      throw new SourceError(
        'SmartOS',
        `not on SmartOS: DMI product '${ctx.dmi.product_name ?? ''}' is not SmartDC… and the kernel is not '${LX_BRAND_KERNEL}'`,
      );
    const device = stringSetting(ctx.settings, 'serial_device', SMARTOS_SERIAL_DEVICE);
    const sockfile = stringSetting(ctx.settings, 'metadata_sockfile', SMARTOS_SOCKET);
    const timeoutMs = timeoutSetting(ctx.settings) * 1000;
    const path = type === 'kvm' ? device : sockfile;
    // The serial port is opened where the root's /dev/ttyS1 leads (a device node, or a link to a pty in tests); opening
    // is the existence check.
    if (type === 'lx-brand' && !(await ctx.platform.exists(path)))
      throw new SourceError('SmartOS', `no metadata socket ${path}`);
    const channel = await openChannel(ctx, type, path, timeoutMs);
    const client = new JoyentMetadataClient(channel, timeoutMs, ctx.log, path);
    const onAbort = () => void channel.close();
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    let md: Record<string, unknown>;
    try {
      if (type === 'kvm') await client.flush();
      await client.negotiate();
      md = await readHost(client, type === 'kvm' ? new LegacyBase64Keys(client) : undefined, ctx.log);
    } catch (err) {
      if (ctx.signal?.aborted)
        throw new SourceError('SmartOS', `the stage's time ran out while reading ${path}`, { cause: err });
      throw err;
    } finally {
      ctx.signal?.removeEventListener('abort', onAbort);
      await channel.close();
    }
    return smartOsInstanceData(ctx, type, md);
  },
};

/** The instance data of what the host gave, after writing the scripts and user data file as cloud-init does. */
async function smartOsInstanceData(
  ctx: CrawlContext,
  type: SmartOsType,
  md: Record<string, unknown>,
): Promise<InstanceData> {
  const iid = md['instance-id'];
  if (typeof iid !== 'string' || !iid) throw new SourceError('SmartOS', 'the host gave no sdc:uuid (the instance id)');
  if (iid.includes('/') || iid === '.' || iid === '..')
    throw new SourceError('SmartOS', `the instance id ${JSON.stringify(iid)} from sdc:uuid cannot name a folder`);
  const cloud = cloudDir(ctx.config);
  const dataDir = posix.join(cloud, 'instances', iid, 'data');
  const userScript = posix.join(dataDir, 'user-script');
  const operatorScript = posix.join(dataDir, 'operator-script');
  // Written on every boot, as the SmartOS data dictionary says; the default vendor data runs them.
  await writeBootContent(ctx.platform, ctx.log, md['user-script'], userScript, {
    link: `${LEGACY_USER_D}/user-script`,
    shebang: true,
    mode: 0o700,
  });
  await writeBootContent(ctx.platform, ctx.log, md['operator-script'], operatorScript, { mode: 0o700 });
  await writeBootContent(ctx.platform, ctx.log, md['legacy-user-data'], `${LEGACY_USER_D}/mdata-user-data`, {
    mode: 0o400,
  });
  if (!md['local-hostname']) md['local-hostname'] = md.hostname || iid;
  if (!md['vendor-data'])
    md['vendor-data'] = builtinVendorData(userScript, operatorScript, posix.join(cloud, 'scripts', 'per-boot'));
  const data: InstanceData = {
    instanceId: iid,
    cloudName: 'joyent',
    platform: 'joyent',
    // cloud-init names the serial port even in an LX-brand zone.
    subplatform: `serial (${SMARTOS_SERIAL_DEVICE})`,
    localHostname: String(md['local-hostname']),
    publicKeys: normalizePublicKeys(md['public-keys']),
    vendorData: new Uint8Array(Buffer.from(String(md['vendor-data']), 'utf8')),
    metadata: md,
  };
  if (typeof md.availability_zone === 'string' && md.availability_zone) data.availabilityZone = md.availability_zone;
  if (typeof md['user-data'] === 'string' && md['user-data'])
    data.userData = new Uint8Array(Buffer.from(md['user-data'], 'utf8'));
  if (md['network-data'] !== null) {
    try {
      data.networkConfig = {
        format: 'v1',
        config: smartOsNetworkConfig(md['network-data'], md.dns_servers, md.dns_domain, md.routes),
      };
    } catch (err) {
      throw new SourceError('SmartOS', `sdc:nics cannot be read as network config: ${describeError(err)}`);
    }
  }
  if (type === 'kvm') data.sourceConfig = structuredClone(KVM_CLOUD_CONFIG);
  // A zone's host waits for /var/svc/provisioning to become provision_success before it keeps the zone running.
  if (await ctx.platform.exists('/var/svc/provisioning')) {
    const marker = await ctx.platform.readFile('/var/svc/provisioning');
    await ctx.platform.writeFile('/var/svc/provision_success', marker);
    await ctx.platform.remove('/var/svc/provisioning');
    ctx.log.debug('SmartOS: instance provisioning state set as successful');
  }
  return data;
}
