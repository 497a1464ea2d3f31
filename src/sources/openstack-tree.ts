// Reads the OpenStack metadata layout (openstack/<version>/…, content/, ec2/) from any reader: a config drive or the
// HTTP service.
import type { InstanceData } from './datasource';
import { SourceError } from './source-error';
import { describeError } from '../util/errors';

/** Reads one file relative to the tree root ('openstack/latest/meta_data.json'); undefined when absent. */
export type TreeReader = (path: string) => Promise<Uint8Array | undefined>;

/** Dated versions cloud-init knows, oldest first; any other YYYY-MM-DD also counts, newest wins. */
export const OPENSTACK_VERSIONS = [
  '2012-08-10',
  '2013-04-04',
  '2013-10-17',
  '2015-10-15',
  '2016-06-30',
  '2016-10-06',
  '2017-02-22',
  '2018-08-27',
];

/** The newest dated version present, else 'latest' (cloud-init prefers a dated version it can rely on). */
export function chooseOpenStackVersion(available: string[]): string {
  const dated = available.filter((v) => /^\d{4}-\d{2}-\d{2}$/.test(v)).sort();
  return dated.at(-1) ?? 'latest';
}

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

function parseJson(source: string, path: string, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(text(bytes));
  } catch (err) {
    throw new SourceError(source, `${path} is not valid JSON: ${describeError(err)}`);
  }
}

/**
 * cloud-init's convert_vendordata: a string is the vendor data; a dict gives its 'cloud-init' key; a list
 * of strings becomes a MIME multipart. Anything else is ignored with a reason.
 */
export function convertVendorData(source: string, path: string, value: unknown): Uint8Array | undefined {
  let v = value;
  if (v && typeof v === 'object' && !Array.isArray(v)) v = (v as Record<string, unknown>)['cloud-init'];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return Buffer.from(v);
  if (Array.isArray(v) && v.every((p) => typeof p === 'string')) return Buffer.from(multipart(v as string[]));
  throw new SourceError(
    source,
    `${path}: vendor data must be a string, a list of strings or a dict with a 'cloud-init' key`,
  );
}

function multipart(parts: string[]): string {
  const boundary = '===============kiln-vendordata==';
  const body = parts
    .map(
      (p) =>
        `--${boundary}\nContent-Type: ${p.startsWith('#cloud-config') ? 'text/cloud-config' : 'text/x-shellscript'}\nMIME-Version: 1.0\n\n${p}\n`,
    )
    .join('');
  return `Content-Type: multipart/mixed; boundary="${boundary}"\nMIME-Version: 1.0\n\n${body}--${boundary}--\n`;
}

export interface OpenStackTree {
  version: string;
  metaData: Record<string, unknown>;
  userData?: Uint8Array;
  vendorData?: Uint8Array;
  vendorData2?: Uint8Array;
  networkData?: unknown;
  ec2Metadata?: Record<string, unknown>;
  files: Array<{ path: string; content: Uint8Array }>;
}

/** Reads the chosen version's files; meta_data.json is required, the rest optional. */
export async function readOpenStackTree(source: string, read: TreeReader, version: string): Promise<OpenStackTree> {
  const dir = `openstack/${version}`;
  const metaBytes = await read(`${dir}/meta_data.json`);
  if (!metaBytes) throw new SourceError(source, `${dir}/meta_data.json is missing`);
  const meta = parseJson(source, `${dir}/meta_data.json`, metaBytes);
  if (!meta || typeof meta !== 'object' || Array.isArray(meta))
    throw new SourceError(source, `${dir}/meta_data.json must be a JSON object`);
  const metaData = meta as Record<string, unknown>;
  const tree: OpenStackTree = { version, metaData, files: [] };
  const userData = await read(`${dir}/user_data`);
  if (userData) tree.userData = userData;
  for (const [name, key] of [
    ['vendor_data.json', 'vendorData'],
    ['vendor_data2.json', 'vendorData2'],
  ] as const) {
    const bytes = await read(`${dir}/${name}`);
    if (!bytes) continue;
    const converted = convertVendorData(source, `${dir}/${name}`, parseJson(source, `${dir}/${name}`, bytes));
    if (converted) tree[key] = converted;
  }
  const net = await read(`${dir}/network_data.json`);
  if (net) tree.networkData = parseJson(source, `${dir}/network_data.json`, net);
  const files = metaData.files;
  if (Array.isArray(files)) {
    for (const f of files) {
      const entry = f as { path?: unknown; content_path?: unknown };
      if (typeof entry.path !== 'string' || typeof entry.content_path !== 'string') continue;
      const contentPath = `openstack/${entry.content_path.replace(/^\/+/, '')}`;
      const content = await read(contentPath);
      if (!content)
        throw new SourceError(
          source,
          `meta_data.json files entry for ${entry.path} points at ${contentPath}, which is missing`,
        );
      tree.files.push({ path: entry.path, content });
    }
  }
  return tree;
}

/** Public keys from `public_keys` (name → key) and `keys` ([{data}]), in that order, without duplicates. */
export function openStackPublicKeys(meta: Record<string, unknown>): string[] {
  const keys: string[] = [];
  const pk = meta.public_keys;
  if (pk && typeof pk === 'object' && !Array.isArray(pk))
    for (const v of Object.values(pk)) if (typeof v === 'string') keys.push(v.trim());
  if (Array.isArray(meta.keys))
    for (const k of meta.keys)
      if (k && typeof (k as { data?: unknown }).data === 'string') keys.push((k as { data: string }).data.trim());
  return [...new Set(keys.filter(Boolean))];
}

/** Normalises an OpenStack tree (config drive or HTTP) to InstanceData. */
export function openStackInstanceData(source: string, tree: OpenStackTree, subplatform: string): InstanceData {
  const meta = tree.metaData;
  const uuid = meta.uuid;
  if (typeof uuid !== 'string' || !uuid)
    throw new SourceError(source, `openstack/${tree.version}/meta_data.json has no 'uuid' (the instance id)`);
  const str = (k: string) => (typeof meta[k] === 'string' && meta[k] ? (meta[k] as string) : undefined);
  // The random seed and admin password are kept out of the metadata copy that lands in instance-data.json.
  const { admin_pass: _adminPass, ...publicMeta } = meta;
  const data: InstanceData = {
    instanceId: uuid,
    cloudName: 'openstack',
    platform: 'openstack',
    subplatform,
    publicKeys: openStackPublicKeys(meta),
    // cloud-init's KEY_COPIES: its own names for the hostname and the uuid sit next to OpenStack's.
    metadata: {
      ...publicMeta,
      ...(meta.hostname !== undefined ? { 'local-hostname': meta.hostname } : {}),
      'instance-id': uuid,
    },
  };
  const host = str('hostname') ?? str('name');
  if (host) data.localHostname = host;
  const az = str('availability_zone');
  if (az) data.availabilityZone = az;
  const adminPass = str('admin_pass');
  if (adminPass) data.adminPassword = adminPass;
  if (tree.userData) data.userData = tree.userData;
  if (tree.vendorData) data.vendorData = tree.vendorData;
  if (tree.vendorData2) data.vendorData2 = tree.vendorData2;
  if (tree.networkData !== undefined) data.networkConfig = { format: 'openstack', config: tree.networkData };
  if (tree.files.length) data.files = tree.files;
  // instance-data.json's ds carries both as 22.4 does: network_data.json as read, and the EC2-style metadata.
  data.extra = {
    ...(tree.ec2Metadata ? { ec2_metadata: tree.ec2Metadata } : {}),
    ...(tree.networkData !== undefined ? { network_json: tree.networkData } : {}),
  };
  return data;
}
