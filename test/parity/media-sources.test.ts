// Parity: cloud-init 25.1's own AltCloud, RbxCloud and IBMCloud datasources (Debian 13's, run by python3 in the parity
// rootfs with media-sources-25.1.py) and kiln's read the same media, as folders and again as real FAT/ISO images (kiln
// reads the image, 25.1 its files unpacked and blkid's tags): instance data (`v1` and `ds`), user and vendor data,
// network config, the datasource's config and RbxCloud's gratuitous ARP must match.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { ConfigMap } from '../../src/config/parse-yaml-config';
import { ImageFilesFinder } from '../../src/devices/image-finder';
import { mergeSystemConfig } from '../../src/config/merge-system-config';
import { convertOpenStackNetworkData } from '../../src/net/convert-openstack';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { buildInstanceData } from '../../src/runner/instance-data';
import { altCloudSource } from '../../src/sources/altcloud';
import type { Datasource, InstanceData } from '../../src/sources/datasource';
import { ibmCloudSource } from '../../src/sources/ibmcloud';
import { rbxArpPairs, rbxCloudSource } from '../../src/sources/rbxcloud';
import { Logger } from '../../src/util/log';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { FIXTURES, REPO } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { FakeFinder, type FakeDrive } from '../sources/fake-finder';
import { PARITY_SUITE } from './run-case';
import { hostUname } from '../../src/platform/host-uname';

/** Where the work folder appears inside the rootfs (a bind mount in the child's own mount namespace). */
const INSIDE = '/mnt';
const DRIVER = join(REPO, 'test/parity/media-sources-25.1.py');
const SYSTEM_CFG = {
  system_info: {
    default_user: { name: 'debian', lock_passwd: true, gecos: 'Debian', groups: ['adm', 'sudo'], shell: '/bin/bash' },
  },
};

interface MediaCase {
  name: string;
  source: Datasource;
  /** Files of the fake machine (kiln's --root; 25.1's patched paths point there too). */
  rootFiles?: Record<string, string>;
  /** Each drive's files, or a fixture folder to copy. */
  drives: Array<
    Omit<FakeDrive, 'dir'> & { files?: Record<string, string>; bytes?: Record<string, Uint8Array>; fixture?: string }
  >;
  dmi?: Record<string, string>;
  macs?: Record<string, string>;
  /** false: neither side may find the source. */
  found?: boolean;
}

const RBX_NETADP = [
  {
    macaddress: '00:15:5D:FF:0F:03',
    ip: [{ address: '62.181.8.174' }],
    network: { dns: { nameservers: ['8.8.8.8', '8.8.4.4'] }, gateway: '62.181.8.1', netmask: '255.255.248.0' },
  },
  {
    macaddress: '00:15:5D:FF:0F:24',
    ip: [{ address: '10.209.78.11' }, { address: '10.209.78.255' }],
    network: { dns: { nameservers: [] }, gateway: '10.209.78.254', netmask: '255.255.255.0' },
  },
];

const CASES: MediaCase[] = [
  {
    name: 'AltCloud RHEV (cloud-info): user-data.txt on the floppy, stripped as Python strips',
    source: altCloudSource,
    rootFiles: { 'etc/sysconfig/cloud-info': ' rhev \n' },
    drives: [
      {
        device: '/dev/fd0',
        label: '',
        fsType: 'vfat',
        files: {
          'user-data.txt': '\n \t#cloud-config\nruncmd: [touch /rhev]\n\x0b\x0c\x1c\x1d\x1e\x1f\x85\u3000\u2028 \n',
        },
      },
    ],
  },
  {
    name: 'AltCloud RHEV (DMI): deltacloud-user-data.txt before user-data.txt',
    source: altCloudSource,
    dmi: { product_name: 'RHEV Hypervisor' },
    drives: [
      {
        device: '/dev/fd0',
        label: '',
        fsType: 'vfat',
        files: { 'deltacloud-user-data.txt': '#!/bin/sh\necho delta\n', 'user-data.txt': '#!/bin/sh\necho plain\n' },
      },
    ],
  },
  {
    name: 'AltCloud RHEV-H (cloud-info): a type containing RHEV, the source left unknown',
    source: altCloudSource,
    rootFiles: { 'etc/sysconfig/cloud-info': 'RHEV-H\n' },
    drives: [{ device: '/dev/fd0', label: '', fsType: 'vfat', files: { 'user-data.txt': 'plain text\n' } }],
  },
  {
    name: 'AltCloud vSphere (DMI): the second CDROM, the first has an empty deltacloud file',
    source: altCloudSource,
    dmi: { product_name: 'VMware Virtual Platform' },
    drives: [
      { device: '/dev/sr0', label: 'CDROM', fsType: 'iso9660', files: { 'deltacloud-user-data.txt': '' } },
      {
        device: '/dev/sr1',
        label: 'cdrom',
        fsType: 'iso9660',
        files: { 'user-data.txt': 'not the one (label case)\n' },
      },
      {
        device: '/dev/sr2',
        label: 'CDROM',
        fsType: 'iso9660',
        files: { 'user-data.txt': '#cloud-config\nhostname: vsphere\n' },
      },
    ],
  },
  {
    name: 'AltCloud RHEV (cloud-info with a byte order mark, which Python does not strip, and \\x1c, which it does)',
    source: altCloudSource,
    rootFiles: { 'etc/sysconfig/cloud-info': '\ufeffrhev\x1c\n' },
    drives: [{ device: '/dev/fd0', label: '', fsType: 'vfat', files: { 'user-data.txt': '#cloud-config\n' } }],
  },
  {
    name: 'AltCloud RHEV: a byte order mark is not whitespace to Python',
    source: altCloudSource,
    rootFiles: { 'etc/sysconfig/cloud-info': 'RHEV' },
    drives: [
      {
        device: '/dev/fd0',
        label: '',
        fsType: 'vfat',
        files: { 'user-data.txt': '\ufeff#cloud-config\nhostname: bom\n\ufeff' },
      },
    ],
  },
  {
    name: 'AltCloud RHEV: user data that is not UTF-8 fails the read',
    source: altCloudSource,
    rootFiles: { 'etc/sysconfig/cloud-info': 'RHEV' },
    drives: [
      {
        device: '/dev/fd0',
        label: '',
        fsType: 'vfat',
        files: { 'user-data.txt': '' },
        bytes: { 'user-data.txt': Buffer.from([0x23, 0x21, 0xff, 0xfe, 0x0a]) },
      },
    ],
    found: false,
  },
  {
    name: 'AltCloud vSphere: no user data on any CDROM',
    source: altCloudSource,
    rootFiles: { 'etc/sysconfig/cloud-info': 'vsphere' },
    drives: [{ device: '/dev/sr0', label: 'CDROM', fsType: 'iso9660', files: { 'readme.txt': 'x' } }],
    found: false,
  },
  {
    name: 'RbxCloud: the CLOUDMD fixture drive (user, password, keys, two NICs), /etc/hosts absent',
    source: rbxCloudSource,
    drives: [{ device: '/dev/vdb', label: 'CLOUDMD', fsType: 'vfat', fixture: 'sources/rbxcloud/happy/drive' }],
    macs: { eth0: '00:15:5d:ff:0f:03', eth1: '00:15:5d:ff:0f:24' },
  },
  {
    name: 'RbxCloud: cloudmd in lower case, no additionalMetadata, no user.data, /etc/hosts present, a gateway whose +2 carries into the next octet',
    source: rbxCloudSource,
    rootFiles: { 'etc/hosts': '127.0.0.1 localhost\n' },
    drives: [
      {
        device: '/dev/vdc',
        label: 'cloudmd',
        fsType: 'vfat',
        files: {
          'cloud.json': JSON.stringify({
            vm: { _id: 'b1f0c3de-0000-4000-8000-000000000001', name: 'rbx.example.com' },
            netadp: RBX_NETADP,
          }),
        },
      },
    ],
  },
  {
    name: 'RbxCloud: cloud.json with a UTF-8 byte order mark fails the read (json.loads of bytes refuses it)',
    source: rbxCloudSource,
    drives: [
      {
        device: '/dev/vdb',
        label: 'CLOUDMD',
        fsType: 'vfat',
        files: {
          'cloud.json': `\ufeff${JSON.stringify({ vm: { _id: 'bom', name: 'bom' }, netadp: [], additionalMetadata: { username: 'u' } })}`,
          'user.data': '#cloud-config\n',
        },
      },
    ],
    found: false,
  },
  {
    name: 'RbxCloud: user.data that is not UTF-8 fails the read',
    source: rbxCloudSource,
    drives: [
      {
        device: '/dev/vdb',
        label: 'CLOUDMD',
        fsType: 'vfat',
        files: { 'cloud.json': JSON.stringify({ vm: { _id: 'x', name: 'y' }, netadp: [] }) },
        bytes: { 'user.data': Buffer.from([0xc3, 0x28]) },
      },
    ],
    found: false,
  },
  {
    name: 'RbxCloud: cloud.json without netadp',
    source: rbxCloudSource,
    drives: [
      {
        device: '/dev/vdb',
        label: 'CLOUDMD',
        fsType: 'vfat',
        files: { 'cloud.json': '{"vm": {"_id": "x", "name": "y"}}' },
      },
    ],
    found: false,
  },
  {
    name: 'RbxCloud: an ISO labelled CLOUDMD is not mounted (vfat only)',
    source: rbxCloudSource,
    drives: [{ device: '/dev/sr0', label: 'CLOUDMD', fsType: 'iso9660', fixture: 'sources/rbxcloud/happy/drive' }],
    found: false,
  },
  {
    name: 'IBMCloud OS-code: config-2 with IBM’s UUID, random_seed, vendor data, network_data.json',
    source: ibmCloudSource,
    rootFiles: { 'proc/xen/capabilities': '' },
    drives: [
      {
        device: '/dev/xvdb',
        label: 'config-2',
        fsType: 'vfat',
        uuid: '1234-ABCD',
        files: { 'openstack/latest/meta_data.json': '{"uuid": "not-ibm"}' },
      },
      {
        device: '/dev/xvdh',
        label: 'config-2',
        fsType: 'vfat',
        uuid: '9796-932E',
        fixture: 'sources/ibmcloud/os-code-drive',
      },
    ],
    macs: { eth0: '06:c3:52:0a:11:aa' },
  },
  {
    name: 'IBMCloud template, live: the METADATA disk, network disabled',
    source: ibmCloudSource,
    rootFiles: { 'proc/xen/capabilities': '' },
    drives: [{ device: '/dev/xvdh', label: 'METADATA', fsType: 'vfat', fixture: 'sources/ibmcloud/template-drive' }],
  },
  {
    name: 'IBMCloud OS-code: a random_seed with line breaks (Python skips them), uuid null',
    source: ibmCloudSource,
    rootFiles: { 'proc/xen/capabilities': '' },
    drives: [
      {
        device: '/dev/xvdh',
        label: 'config-2',
        fsType: 'vfat',
        uuid: '9796-932E',
        files: {
          'openstack/latest/meta_data.json': JSON.stringify({
            uuid: null,
            hostname: 'seedy',
            random_seed: 'a2lsbi1p\nYm0tcmFuZG9t\r\nLXNlZWQ=',
          }),
        },
      },
    ],
  },
  {
    name: 'IBMCloud OS-code: a random_seed with bad padding fails the read',
    source: ibmCloudSource,
    rootFiles: { 'proc/xen/capabilities': '' },
    drives: [
      {
        device: '/dev/xvdh',
        label: 'config-2',
        fsType: 'vfat',
        uuid: '9796-932E',
        files: { 'openstack/latest/meta_data.json': JSON.stringify({ uuid: 'u', random_seed: 'a2lsbi1' }) },
      },
    ],
    found: false,
  },
  {
    name: 'IBMCloud OS-code: meta_data.json that is not JSON fails the read',
    source: ibmCloudSource,
    rootFiles: { 'proc/xen/capabilities': '' },
    drives: [
      {
        device: '/dev/xvdh',
        label: 'config-2',
        fsType: 'vfat',
        uuid: '9796-932E',
        files: { 'openstack/latest/meta_data.json': '{"uuid": ' },
      },
    ],
    found: false,
  },
  {
    name: "IBMCloud OS-code without a hostname: v1.local_hostname is the machine's (25.1's get_hostname falls back to it, as 22.4's)",
    source: ibmCloudSource,
    rootFiles: { 'proc/xen/capabilities': '' },
    drives: [
      {
        device: '/dev/xvdh',
        label: 'config-2',
        fsType: 'vfat',
        uuid: '9796-932E',
        files: { 'openstack/latest/meta_data.json': '{"uuid": "no-name"}' },
      },
    ],
  },
  {
    name: 'IBMCloud template, still provisioning: nothing',
    source: ibmCloudSource,
    rootFiles: { 'proc/xen/capabilities': '', 'root/provisioningConfiguration.cfg': 'x' },
    drives: [{ device: '/dev/xvdh', label: 'METADATA', fsType: 'vfat', fixture: 'sources/ibmcloud/template-drive' }],
    found: false,
  },
  {
    name: 'IBMCloud OS-code: CONFIG-2 in capitals with a lower-case UUID, a uuid that is a number, no network_data.json',
    source: ibmCloudSource,
    rootFiles: { 'proc/xen/capabilities': '' },
    drives: [
      {
        device: '/dev/xvdh',
        label: 'CONFIG-2',
        fsType: 'vfat',
        uuid: '9796-932e',
        files: {
          'openstack/latest/meta_data.json':
            '{"uuid": 1234, "hostname": "ibm-plain", "public_keys": {"a": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIbm a@ibm"}}',
        },
      },
    ],
  },
];

interface Theirs {
  ok: boolean;
  error?: string | null;
  instance_data?: {
    v1: Record<string, unknown>;
    ds: Record<string, unknown>;
    base64_encoded_keys: string[];
    sensitive_keys: string[];
  };
  userdata_raw?: string | null;
  vendordata_raw?: string | null;
  network_config?: unknown;
  config?: Record<string, unknown>;
  merged?: Record<string, unknown>;
  arping?: string[][];
}

/** The v1 keys a datasource decides (the rest describe the machine or the interpreter). */
const V1_KEYS = [
  'availability-zone',
  'availability_zone',
  'cloud-name',
  'cloud_id',
  'cloud_name',
  'instance-id',
  'instance_id',
  'local-hostname',
  'local_hostname',
  'platform',
  'public_ssh_keys',
  'region',
  'subplatform',
];
const pick = (o: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
const withoutDoc = ({ _doc: _, ...rest }: Record<string, unknown>) => rest;
const b64 = (b: Uint8Array | undefined) => (b === undefined ? null : Buffer.from(b).toString('base64'));

function writeTree(dir: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
}

/** python3 in the rootfs, in its own mount and network namespaces, with WORK bind-mounted on /mnt. */
function runCloudInit(rootfs: string, work: string, args: unknown): Theirs {
  const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  const script = `set -e\nmount --bind ${q(work)} ${q(join(rootfs, INSIDE))}\nexec chroot ${q(rootfs)} /usr/bin/python3 -B ${INSIDE}/driver.py ${q(JSON.stringify(args))}`;
  const r = spawnSync('unshare', ['--mount', '--propagation', 'private', '--net', '/bin/sh', '-c', script], {
    encoding: 'utf8',
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
    timeout: 120_000,
  });
  assert.equal(r.status, 0, `cloud-init's side failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Theirs;
}

/** A real image of FOLDER (mkfs.vfat + mcopy, or genisoimage) as the drive describes it. */
function makeImage(d: FakeDrive, image: string): void {
  const run = (argv: string[]) => {
    const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8' });
    assert.equal(r.status, 0, `${argv.join(' ')}: ${r.stderr}`);
  };
  if (d.fsType === 'iso9660') {
    run(['genisoimage', '-quiet', '-output', image, '-volid', d.label, '-joliet', '-rock', d.dir]);
    return;
  }
  run(['mkfs.vfat', '-C', '-n', d.label, ...(d.uuid ? ['-i', d.uuid.replace('-', '')] : []), image, '1440']);
  for (const entry of readdirSync(d.dir)) run(['mcopy', '-s', '-i', image, join(d.dir, entry), '::/']);
}

/** The image's files, unpacked again (what a mount would show 25.1), and the tags blkid reads from it. */
function unpackImage(d: FakeDrive, image: string, into: string): FakeDrive {
  mkdirSync(into, { recursive: true });
  const argv =
    d.fsType === 'iso9660'
      ? ['xorriso', '-osirrox', 'on', '-indev', image, '-extract', '/', into]
      : ['mcopy', '-s', '-n', '-i', image, '::/*', `${into}/`];
  const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8' });
  assert.equal(r.status, 0, `${argv.join(' ')}: ${r.stderr}`);
  const tags = Object.fromEntries(
    spawnSync('blkid', ['-o', 'export', image], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const fsType = tags.TYPE === 'iso9660' ? 'iso9660' : 'vfat';
  return { device: image, label: tags.LABEL ?? '', fsType, dir: into, ...(tags.UUID ? { uuid: tags.UUID } : {}) };
}

for (const c of CASES) {
  // AltCloud's floppy is /dev/fd0 by name: only a folder can stand for it.
  const variants: Array<'folders' | 'images'> = c.drives.every((d) => d.label) ? ['folders', 'images'] : ['folders'];
  for (const variant of variants) {
    test(`${c.source.name} parity with cloud-init 25.1 (${variant}): ${c.name}`, async (t) => {
      if (
        !need(
          t,
          isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
          'needs root, unshare, chroot and debootstrap for the Debian cloud-init rootfs',
        )
      )
        return;
      if (
        variant === 'images' &&
        !need(
          t,
          ['mkfs.vfat', 'mcopy', 'genisoimage', 'xorriso', 'blkid'].every(hasCommand),
          'mkfs.vfat, mcopy, genisoimage, xorriso and blkid make and unpack the images',
        )
      )
        return;
      await compare(t, c, variant);
    });
  }
}

async function compare(t: TestContext, c: MediaCase, variant: 'folders' | 'images'): Promise<void> {
  const rootfs = ensureDebianRootfs(PARITY_SUITE);
  const work = tempDir(t, 'kiln-media-parity-');
  copyFileSync(DRIVER, join(work, 'driver.py'));
  const root = join(work, 'root');
  mkdirSync(root);
  writeTree(root, c.rootFiles ?? {});
  const drives: FakeDrive[] = c.drives.map((d, i) => {
    const dir = join(work, 'media', String(i));
    mkdirSync(dir, { recursive: true });
    if (d.fixture) cpSync(join(FIXTURES, d.fixture), dir, { recursive: true });
    writeTree(dir, { ...d.files, ...d.bytes });
    const { files: _f, bytes: _b, fixture: _x, ...rest } = d;
    return { ...rest, dir };
  });
  // Images: kiln reads them with its own FAT and ISO 9660 readers; 25.1 gets their files unpacked and blkid's tags.
  const images = variant === 'images' ? drives.map((_d, i) => join(work, 'img', `${i}.img`)) : [];
  if (images.length) mkdirSync(join(work, 'img'));
  for (const [i, img] of images.entries()) makeImage(drives[i] as FakeDrive, img);
  const theirDrives = images.length
    ? images.map((img, i) => unpackImage(drives[i] as FakeDrive, img, join(work, 'unpacked', String(i))))
    : drives;
  const inside = (p: string) => INSIDE + p.slice(work.length);
  const theirs = runCloudInit(rootfs, work, {
    source: c.source.name,
    root: inside(root),
    out: `${INSIDE}/out`,
    drives: theirDrives.map((d) => ({ ...d, dir: inside(d.dir) })),
    dmi: c.dmi ?? {},
    macs: c.macs ?? {},
    system_cfg: SYSTEM_CFG,
  });

  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root, log });
  const finder = images.length
    ? new ImageFilesFinder(images, log)
    : new FakeFinder(new LinuxPlatform({ root: '/', log }), drives);
  const ctx = { platform, log, kernelCmdline: '', dmi: c.dmi ?? {}, config: {}, finder, settings: {} };
  const ours = await c.source.crawl(ctx).then(
    (d) => d,
    (err: Error) => err,
  );
  if (c.found === false) {
    assert.equal(theirs.ok, false, 'cloud-init 25.1 does not find the source either');
    t.diagnostic(
      `cloud-init: ${theirs.error ?? 'get_data() returned False'}; kiln: ${ours instanceof Error ? ours.message : ''}`,
    );
    assert.ok(ours instanceof Error, 'kiln finds no source');
    return;
  }
  assert.equal(theirs.ok, true, `cloud-init 25.1 found the source (${theirs.error ?? ''})`);
  if (ours instanceof Error) throw ours;
  const data: InstanceData = ours;

  const doc = theirs.instance_data;
  assert.ok(doc, 'cloud-init wrote instance-data-sensitive.json');
  const mine = buildInstanceData({
    kernel: hostUname(),
    instance: data,
    distro: { name: 'debian', family: 'debian', version: '13', codename: 'trixie' },
    mergedConfig: {},
    systemConfig: {},
  });
  assert.deepEqual(pick(mine.v1 as Record<string, unknown>, V1_KEYS), pick(doc.v1, V1_KEYS), 'v1');
  assert.deepEqual(withoutDoc(mine.ds as Record<string, unknown>), withoutDoc(doc.ds), 'ds');
  assert.deepEqual(mine.base64_encoded_keys, doc.base64_encoded_keys, 'base64_encoded_keys');
  assert.deepEqual(mine.sensitive_keys, doc.sensitive_keys, 'sensitive_keys');
  assert.equal(b64(data.userData), theirs.userdata_raw ?? null, 'user data');
  assert.equal(b64(data.vendorData), theirs.vendordata_raw ?? null, 'vendor data');

  const macs = new Map(Object.entries(c.macs ?? {}).map(([n, m]) => [m, n]));
  const net = data.networkConfig;
  const network = net?.format === 'openstack' ? convertOpenStackNetworkData(net.config, macs) : (net?.config ?? null);
  assert.deepEqual(network, theirs.network_config ?? null, 'network config');

  const system = SYSTEM_CFG as unknown as ConfigMap;
  const merged = mergeSystemConfig(system, (data.sourceConfig ?? {}) as ConfigMap);
  assert.deepEqual(merged, theirs.merged, 'the datasource config over the system config');
  if (c.source === rbxCloudSource)
    assert.deepEqual(
      rbxArpPairs(net?.config).map((p) => ['arping', '-c', '2', '-S', p.source, p.destination]),
      theirs.arping,
      'gratuitous ARP',
    );
}
