// ds-identify decisions: from DMI, cmdline, seed folders, labels and datasource_list, without any network call.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { buildDetectContext, candidateSources, detectSources, readDmi } from '../../src/sources/detect';
import { DATASOURCES, datasourceByName } from '../../src/sources/registry';
import { forcedDatasources, noCloudHint } from '../../src/sources/kernel-cmdline';
import { Logger, MemorySink } from '../../src/util/log';
import { tempDir } from '../helpers/temp';
import { FakeFinder, type FakeDrive } from './fake-finder';

interface Setup {
  files?: Record<string, string>;
  config?: Record<string, unknown>;
  drives?: FakeDrive[];
}

async function context(t: TestContext, s: Setup) {
  const root = tempDir(t);
  for (const [p, c] of Object.entries(s.files ?? {})) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), c);
  }
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const log = logger.for('test');
  const platform = new LinuxPlatform({ root, log });
  const finder = new FakeFinder(new LinuxPlatform({ root: '/', log }), s.drives ?? []);
  const ctx = await buildDetectContext({
    platform,
    log,
    config: s.config ?? { datasource_list: DATASOURCES.map((d) => d.name) },
    finder,
  });
  return { ctx, sink, finder, root };
}

const names = (list: ReadonlyArray<{ name: string }>) => list.map((d) => d.name);

/** cloud-init's default datasource_list (settings.py, 22.4 plus the sources newer releases added), None last. */
const CLOUD_INIT_ORDER = [
  'NoCloud',
  'ConfigDrive',
  'LXD',
  'OpenNebula',
  'DigitalOcean',
  'Azure',
  'AltCloud',
  'OVF',
  'MAAS',
  'GCE',
  'OpenStack',
  'AliYun',
  'Vultr',
  'Ec2',
  'CloudSigma',
  'CloudStack',
  'SmartOS',
  'Bigstep',
  'Scaleway',
  'Hetzner',
  'IBMCloud',
  'Oracle',
  'Exoscale',
  'RbxCloud',
  'UpCloud',
  'VMware',
  'NWCS',
  'Akamai',
  'WSL',
  'CloudCIX',
  'None',
];

test('registry lists the sources in cloud-init order, None last', () => {
  const known = names(DATASOURCES);
  // Every source kiln has, in cloud-init's order: the registry is cloud-init's list with the missing ones left out.
  assert.deepEqual(
    known,
    CLOUD_INIT_ORDER.filter((n) => known.includes(n)),
  );
  assert.deepEqual(
    known.filter((n) => !CLOUD_INIT_ORDER.includes(n)),
    [],
    'a source cloud-init does not list by default',
  );
  for (const n of [
    'NoCloud',
    'ConfigDrive',
    'LXD',
    'DigitalOcean',
    'Azure',
    'OVF',
    'GCE',
    'OpenStack',
    'Vultr',
    'Ec2',
    'Scaleway',
    'Hetzner',
    'Oracle',
    'UpCloud',
    'VMware',
    'Akamai',
    'MAAS',
    'IBMCloud',
    'CloudCIX',
    'OpenNebula',
    'AltCloud',
    'Bigstep',
    'RbxCloud',
    'WSL',
    'CloudSigma',
    'SmartOS',
    'NWCS',
    'AliYun',
    'CloudStack',
    'Exoscale',
  ])
    assert.ok(known.includes(n), n);
  assert.equal(known.at(-1), 'None');
  assert.equal(datasourceByName('UpCloudLocal')?.name, 'UpCloud');
  assert.equal(datasourceByName('akamailocal')?.name, 'Akamai');
  assert.equal(datasourceByName('nocloud-net')?.name, 'NoCloud');
  assert.equal(datasourceByName('configdrive2')?.name, 'ConfigDrive');
  assert.equal(datasourceByName('EC2')?.name, 'Ec2');
  assert.equal(datasourceByName('azure')?.name, 'Azure');
  assert.equal(datasourceByName('NoSuchCloud'), undefined);
});

test('cmdline parsing: ci.ds=, ci.datasource=, ds=nocloud;s=…;i=…;h=…', () => {
  assert.deepEqual(forcedDatasources('ro ci.ds=Ec2 quiet'), ['Ec2']);
  assert.deepEqual(forcedDatasources('ci.datasource=NoCloud,None'), ['NoCloud', 'None']);
  assert.equal(forcedDatasources('ds=nocloud'), undefined);
  assert.deepEqual(noCloudHint('root=/dev/vda ds=nocloud-net;s=http://10.0.0.2:8000/seed/;i=iid-1;h=web1 ro'), {
    mode: 'nocloud-net',
    seedfrom: 'http://10.0.0.2:8000/seed/',
    instanceId: 'iid-1',
    localHostname: 'web1',
    pairs: [
      ['seedfrom', 'http://10.0.0.2:8000/seed/'],
      ['instance-id', 'iid-1'],
      ['local-hostname', 'web1'],
    ],
  });
  assert.deepEqual(noCloudHint('ds=nocloud;seedfrom=file:///srv/seed/'), {
    mode: 'nocloud',
    seedfrom: 'file:///srv/seed/',
    pairs: [['seedfrom', 'file:///srv/seed/']],
  });
  assert.equal(noCloudHint('ds=other'), undefined);
});

test('DMI is read from /sys/class/dmi/id and /sys/hypervisor/uuid inside the root', async (t) => {
  const { ctx } = await context(t, {
    files: {
      'sys/class/dmi/id/sys_vendor': 'Amazon EC2\n',
      'sys/class/dmi/id/product_name': 'm5.large\n',
      'sys/hypervisor/uuid': 'ec2abcd\n',
    },
  });
  assert.deepEqual(await readDmi(ctx.platform), {
    sys_vendor: 'Amazon EC2',
    product_name: 'm5.large',
    hypervisor_uuid: 'ec2abcd',
  });
});

test('a machine with no cloud decides None, quickly, touching no drive twice', async (t) => {
  const { ctx, finder } = await context(t, {
    files: { 'proc/cmdline': 'root=/dev/sda1 ro quiet\n', 'sys/class/dmi/id/sys_vendor': 'QEMU\n' },
  });
  const started = performance.now();
  const result = await detectSources(ctx);
  const ms = performance.now() - started;
  assert.deepEqual(names(result.candidates), ['None']);
  assert.equal(result.reason, 'detected');
  assert.ok(ms < 500, `detection took ${ms} ms`);
  // Every source but None is checked, and none is found (whatever sources the registry holds).
  assert.deepEqual(
    result.checks.map((c) => [c.name, c.found]),
    DATASOURCES.filter((d) => d.name !== 'None').map((d) => [d.name, false]),
  );
  assert.ok(
    finder.requests.length <= 5,
    'only NoCloud, ConfigDrive, OVF, OpenNebula and RbxCloud look for filesystems (Azure only on a Hyper-V guest, AltCloud only on RHEV/vSphere)',
  );
});

test('DigitalOcean and Hetzner from the DMI system vendor only, as ds-identify checks them', async (t) => {
  let { ctx } = await context(t, {
    files: { 'sys/class/dmi/id/sys_vendor': 'DigitalOcean\n', 'sys/class/dmi/id/product_serial': '2756294\n' },
  });
  assert.deepEqual(names(await candidateSources(ctx)), ['DigitalOcean', 'None']);
  ({ ctx } = await context(t, {
    files: { 'sys/class/dmi/id/sys_vendor': 'Hetzner\n', 'sys/class/dmi/id/product_serial': '123456\n' },
  }));
  assert.deepEqual(names(await candidateSources(ctx)), ['Hetzner', 'None']);
  ({ ctx } = await context(t, {
    files: {
      'sys/class/dmi/id/product_name': 'DigitalOcean Droplet\n',
      'sys/class/dmi/id/product_serial': 'hetzner\n',
    },
  }));
  assert.deepEqual(names(await candidateSources(ctx)), ['None']);
});

test("GCE from DMI: product name, or a GoogleCloud- serial (cloud-init's platform_reports_gce)", async (t) => {
  let { ctx } = await context(t, {
    files: { 'sys/class/dmi/id/product_name': 'Google Compute Engine\n', 'sys/class/dmi/id/sys_vendor': 'Google\n' },
  });
  assert.deepEqual(names(await candidateSources(ctx)), ['GCE', 'None']);
  ({ ctx } = await context(t, { files: { 'sys/class/dmi/id/product_serial': 'GoogleCloud-7D2E4C5A9B1F3E6D8C0A\n' } }));
  assert.deepEqual(names(await candidateSources(ctx)), ['GCE', 'None']);
  ({ ctx } = await context(t, { files: { 'sys/class/dmi/id/product_name': 'Google Compute Engine Lookalike\n' } }));
  assert.deepEqual(names(await candidateSources(ctx)), ['None']);
});

test('EC2 from DMI: sys_vendor, product_uuid, and strict_id: false', async (t) => {
  let { ctx } = await context(t, { files: { 'sys/class/dmi/id/sys_vendor': 'Amazon EC2\n' } });
  assert.deepEqual(names(await candidateSources(ctx)), ['Ec2', 'None']);
  ({ ctx } = await context(t, {
    files: {
      'sys/class/dmi/id/product_uuid': 'EC23AEF2-0000-1111-2222-333344445555\n',
      'sys/class/dmi/id/product_serial': 'ec23aef2-0000-1111-2222-333344445555\n',
    },
  }));
  assert.deepEqual(names(await candidateSources(ctx)), ['Ec2', 'None']);
  ({ ctx } = await context(t, {
    config: { datasource_list: ['Ec2', 'OpenStack', 'None'], datasource: { Ec2: { strict_id: false } } },
  }));
  assert.deepEqual(names(await candidateSources(ctx)), ['Ec2', 'None']);
});

test('Oracle from the DMI chassis asset tag OracleCloud.com', async (t) => {
  const { ctx } = await context(t, { files: { 'sys/class/dmi/id/chassis_asset_tag': 'OracleCloud.com\n' } });
  assert.deepEqual(names(await candidateSources(ctx)), ['Oracle', 'None']);
});

test('OpenStack from the DMI product name or a known asset tag', async (t) => {
  let { ctx } = await context(t, { files: { 'sys/class/dmi/id/product_name': 'OpenStack Nova\n' } });
  assert.deepEqual(names(await candidateSources(ctx)), ['OpenStack', 'None']);
  ({ ctx } = await context(t, { files: { 'sys/class/dmi/id/chassis_asset_tag': 'OpenTelekomCloud\n' } }));
  assert.deepEqual(names(await candidateSources(ctx)), ['OpenStack', 'None']);
});

test('NoCloud from a seed folder, the cmdline, the DMI serial, or a cidata drive; ConfigDrive from config-2', async (t) => {
  let { ctx } = await context(t, {
    files: {
      'var/lib/cloud/seed/nocloud-net/meta-data': 'instance-id: x\n',
      'var/lib/cloud/seed/nocloud-net/user-data': '',
    },
  });
  assert.deepEqual(names(await candidateSources(ctx)), ['NoCloud', 'None']);
  // ds-identify's check_seed_dir nocloud meta-data user-data: a folder with meta-data alone is no seed.
  ({ ctx } = await context(t, { files: { 'var/lib/cloud/seed/nocloud-net/meta-data': 'instance-id: x\n' } }));
  assert.deepEqual(names(await candidateSources(ctx)), ['None']);
  ({ ctx } = await context(t, { files: { 'proc/cmdline': 'ro ds=nocloud;s=http://10.1.1.1/\n' } }));
  assert.deepEqual(names(await candidateSources(ctx)), ['NoCloud', 'None']);
  ({ ctx } = await context(t, { files: { 'sys/class/dmi/id/product_serial': 'ds=nocloud-net;s=http://10.1.1.1/\n' } }));
  assert.deepEqual(names(await candidateSources(ctx)), ['NoCloud', 'None']);
  const driveDir = tempDir(t);
  ({ ctx } = await context(t, {
    drives: [
      { device: '/dev/sr0', label: 'CIDATA', fsType: 'iso9660', dir: driveDir },
      { device: '/dev/vdb', label: 'config-2', fsType: 'vfat', dir: driveDir },
    ],
  }));
  assert.deepEqual(names(await candidateSources(ctx)), ['NoCloud', 'ConfigDrive', 'None']);
});

test('ci.ds= on the cmdline and a single-entry datasource_list are used without checks', async (t) => {
  let { ctx } = await context(t, { files: { 'proc/cmdline': 'ci.ds=OpenStack\n' } });
  let r = await detectSources(ctx);
  assert.deepEqual(names(r.candidates), ['OpenStack']);
  assert.equal(r.checks.length, 0);
  assert.match(r.reason, /ci\.ds=OpenStack/);
  ({ ctx } = await context(t, { config: { datasource_list: ['Ec2', 'None'] } }));
  r = await detectSources(ctx);
  assert.deepEqual(names(r.candidates), ['Ec2', 'None']);
  assert.equal(r.checks.length, 0);
});

test('datasource_list order is honoured and unknown names are warned about', async (t) => {
  const driveDir = tempDir(t);
  const { ctx, sink } = await context(t, {
    config: { datasource_list: ['ConfigDrive', 'NoSuchCloud', 'NoCloud'] },
    drives: [
      { device: '/dev/sr0', label: 'cidata', fsType: 'iso9660', dir: driveDir },
      { device: '/dev/sr1', label: 'config-2', fsType: 'iso9660', dir: driveDir },
    ],
  });
  assert.deepEqual(names(await candidateSources(ctx)), ['ConfigDrive', 'NoCloud']);
  assert.ok(sink.lines.some((l) => l.includes("datasource 'NoSuchCloud'") && l.includes('WARNING')));
});

test('a detect() that throws counts as not found, with a warning', async (t) => {
  const { ctx, sink } = await context(t, { config: { datasource_list: ['NoCloud', 'Ec2', 'None'] } });
  const broken = {
    name: 'NoCloud',
    kind: 'local' as const,
    detect: async () => {
      throw new Error('disk on fire');
    },
    crawl: async () => {
      throw new Error('unreachable');
    },
  };
  const r = await detectSources(ctx, [broken, ...DATASOURCES.filter((d) => d.name !== 'NoCloud')]);
  assert.deepEqual(names(r.candidates), ['None']);
  assert.ok(sink.lines.some((l) => l.includes('disk on fire')));
});

test('Azure from the chassis asset tag or a seeded ovf-env.xml; a Hyper-V guest needs an rd_rdfe_* medium', async (t) => {
  let { ctx } = await context(t, {
    files: { 'sys/class/dmi/id/chassis_asset_tag': '7783-7084-3265-9085-8269-3286-77\n' },
  });
  assert.deepEqual(names(await candidateSources(ctx)), ['Azure', 'None']);
  ({ ctx } = await context(t, { files: { 'var/lib/cloud/seed/azure/ovf-env.xml': '<Environment/>' } }));
  assert.deepEqual(names(await candidateSources(ctx)), ['Azure', 'None']);
  ({ ctx } = await context(t, { files: { 'sys/class/dmi/id/sys_vendor': 'Microsoft Corporation\n' } }));
  assert.deepEqual(names(await candidateSources(ctx)), ['None']);
  // waagent's copy alone is no evidence (cloud-init reads it only once Azure is chosen).
  ({ ctx } = await context(t, { files: { 'var/lib/waagent/ovf-env.xml': '<Environment/>' } }));
  assert.deepEqual(names(await candidateSources(ctx)), ['None']);
});
