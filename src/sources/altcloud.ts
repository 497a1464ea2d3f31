// AltCloud (RHEV and vSphere through Deltacloud / Image Factory): user data on the RHEV floppy /dev/fd0 or a vSphere
// CD labelled CDROM, read as cloud-init's DataSourceAltCloud reads it, with kiln's own filesystem readers.
import type { FileTree } from '../devices/filesystem-finder';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { SourceError } from './source-error';
import { describeError } from '../util/errors';

const NAME = 'AltCloud';
export const CLOUD_INFO_FILE = '/etc/sysconfig/cloud-info';
/** cloud-init's META_DATA_NOT_SUPPORTED: what AltCloud reports as meta-data, whatever the cloud. */
const META_DATA = { 'block-device-mapping': {}, 'instance-id': 455, 'local-hostname': 'localhost', placement: {} };
const FLOPPY = '/dev/fd0';
const USER_DATA_FILES = ['deltacloud-user-data.txt', 'user-data.txt'];

/**
 * What Python's str.isspace() calls whitespace (JavaScript's \s also takes U+FEFF, the byte order mark, which Python
 * keeps).
 */
const PY_STRIP =
  /^[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

/**
 * cloud-init's get_cloud_type: cloud-info's text (stripped as Python strips, upper case), else DMI product_name RHEV… /
 * VMWARE….
 */
export async function altCloudType(ctx: DetectContext): Promise<string> {
  const info = await ctx.platform.readTextIfExists(CLOUD_INFO_FILE).catch(() => undefined);
  if (info !== undefined) return info.replace(PY_STRIP, '').toUpperCase();
  const product = (ctx.dmi.product_name ?? '').toUpperCase();
  if (product.startsWith('RHEV')) return 'RHEV';
  if (product.startsWith('VMWARE')) return 'VSPHERE';
  return 'UNKNOWN';
}

/**
 * deltacloud-user-data.txt, else user-data.txt, decoded as UTF-8 and stripped as cloud-init's load_file().strip();
 * undefined when neither exists. Bytes that are not UTF-8 fail the read, as cloud-init's decode does.
 */
async function readUserData(tree: FileTree, device: string): Promise<string | undefined> {
  for (const f of USER_DATA_FILES) {
    const bytes = await tree.readFile(f);
    if (!bytes) continue;
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch (err) {
      throw new SourceError(NAME, `${device}: ${f} is not UTF-8 text`, { cause: err });
    }
    return text.replace(PY_STRIP, '');
  }
  return undefined;
}

/** The floppy device, once `modprobe floppy` has made it (cloud-init waits up to 5 s in udevadm settle). */
async function floppyTree(ctx: CrawlContext): Promise<FileTree | undefined> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const [found] = await ctx.finder.find({ labels: [], anyLabel: true, deviceName: /^fd0$/ });
    if (found) return found.tree;
    if (Date.now() >= deadline || ctx.signal?.aborted) return undefined;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function rhevUserData(ctx: CrawlContext): Promise<string | undefined> {
  // cloud-init loads the floppy driver first; only on the running system (never into the host from a --root image).
  if (ctx.platform.root === '/') {
    const r = await ctx.platform
      .run(['modprobe', 'floppy'], { allowFailure: true, timeoutMs: 30_000 })
      .catch((err: unknown) => ({ code: -1, stdout: '', stderr: describeError(err) }));
    if (r.code !== 0)
      throw new SourceError(
        NAME,
        `modprobe floppy failed (${r.stderr.trim() || `exit code ${r.code}`}); no RHEV user data floppy`,
      );
  }
  const tree = await floppyTree(ctx);
  if (!tree) throw new SourceError(NAME, `${FLOPPY} holds no filesystem kiln can read (FAT, ISO 9660, UDF)`);
  return readUserData(tree, FLOPPY);
}

export const altCloudSource: Datasource = {
  name: NAME,
  kind: 'local',
  /** cloud-init's __str__ prints a seed it never sets. */
  describe: (_data, cls) => `${cls} [seed=None]`,
  async detect(ctx) {
    // ds-identify reads the first line of cloud-info; kiln also takes DMI's RHEV product name, which the crawl honours.
    const info = await ctx.platform.readTextIfExists(CLOUD_INFO_FILE).catch(() => undefined);
    const first =
      info !== undefined
        ? (info.split('\n')[0] ?? '').trim().toLowerCase()
        : (ctx.dmi.product_name ?? '').toUpperCase().startsWith('RHEV')
          ? 'rhev'
          : '';
    if (first === 'rhev')
      return (
        (await ctx.platform.exists('/dev/floppy')) ||
        (await ctx.platform.exists(FLOPPY)) ||
        (await ctx.platform.exists('/sys/class/block/fd0')) ||
        (await ctx.finder.find({ labels: [], anyLabel: true, deviceName: /^fd0$/ })).length > 0
      );
    if (first === 'vsphere') return (await ctx.finder.find({ labels: ['CDROM'] })).some((f) => f.label === 'CDROM');
    return false;
  },
  async crawl(ctx) {
    const type = await altCloudType(ctx);
    ctx.log.debug(`AltCloud: cloud_type: ${type}`);
    let userData: string | undefined;
    let source = 'unknown';
    if (type.includes('RHEV')) {
      userData = await rhevUserData(ctx);
      if (type === 'RHEV') source = FLOPPY;
    } else if (type.includes('VSPHERE')) {
      for (const cd of (await ctx.finder.find({ labels: ['CDROM'] })).filter((f) => f.label === 'CDROM')) {
        userData = await readUserData(cd.tree, cd.device);
        if (userData) {
          source = cd.device;
          break;
        }
      }
    } else {
      throw new SourceError(
        NAME,
        `the cloud type is '${type}' (from ${CLOUD_INFO_FILE} or DMI product_name), neither RHEV nor VSPHERE`,
      );
    }
    if (!userData)
      throw new SourceError(
        NAME,
        `no user data: neither ${USER_DATA_FILES.join(' nor ')} (non-empty) on ${type.includes('RHEV') ? FLOPPY : 'a filesystem labelled CDROM'}`,
      );
    return {
      instanceId: String(META_DATA['instance-id']),
      cloudName: 'altcloud',
      platform: 'altcloud',
      subplatform: `${type.toLowerCase()} (${source})`,
      localHostname: META_DATA['local-hostname'],
      publicKeys: [],
      userData: Buffer.from(userData, 'utf8'),
      metadata: structuredClone(META_DATA),
    } satisfies InstanceData;
  },
};
