// The EC2-compatible clouds cloud-init tells apart by DMI, strict_id's modes, and what a lookalike is spared (tokens,
// identity document, Ec2Local).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { DetectContext } from '../../src/sources/datasource';
import { ec2Source } from '../../src/sources/ec2/ec2';
import { ec2StrictMode, identifyEc2Platform } from '../../src/sources/ec2/ec2-platform';
import { Logger, MemorySink } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

function ctx(
  t: TestContext,
  dmi: Record<string, string>,
  config: Record<string, unknown> = {},
  kernelCmdline = '',
): DetectContext & { sink: MemorySink } {
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const log = logger.for('test');
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  return { platform, log, kernelCmdline, dmi, config, finder: new FakeFinder(platform), sink };
}

test("identify_platform: each cloud by its DMI, in cloud-init's order", () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ sys_vendor: 'Amazon EC2' }, 'aws'],
    [{ hypervisor_uuid: 'ec2e1916-9099-7caf-fd21-012345abcdef', product_serial: 'x.brightbox.com' }, 'aws'],
    [{ product_serial: 'srv-abcde.gb1.brightbox.com' }, 'brightbox'],
    [{ product_serial: 'SRV-ABCDE.GB1.BRIGHTBOX.COM' }, 'brightbox'],
    [{ chassis_asset_tag: '0123abcd.zstack.io' }, 'zstack'],
    [{ sys_vendor: 'e24cloud' }, 'e24cloud'],
    [{ sys_vendor: '3DS Outscale', product_name: '3DS Outscale VM' }, 'outscale'],
    [{ sys_vendor: '3DS Outscale', product_name: 'Something else' }, 'unknown'],
    [{ sys_vendor: 'Tilaa' }, 'tilaa'],
    [{ sys_vendor: 'QEMU', product_serial: 'brightbox.com.example' }, 'unknown'],
    [{}, 'unknown'],
  ];
  for (const [dmi, want] of cases) assert.equal(identifyEc2Platform(dmi), want, JSON.stringify(dmi));
});

test('strict_id: true by default; false and warn[,N] let an unknown platform be tried; the kernel cmdline wins; nonsense is warned about', (t) => {
  const mode = (config: Record<string, unknown>, cmdline = '') => ec2StrictMode(ctx(t, {}, config, cmdline));
  assert.equal(mode({}), 'true');
  assert.equal(mode({ datasource: { Ec2: { strict_id: false } } }), 'false');
  assert.equal(mode({ datasource: { Ec2: { strict_id: 'false' } } }), 'false');
  assert.equal(mode({ datasource: { Ec2: { strict_id: 'warn' } } }), 'warn');
  assert.equal(mode({ datasource: { Ec2: { strict_id: 'warn,30' } } }), 'warn');
  assert.equal(
    mode({ datasource: { Ec2: { strict_id: false } } }, 'ro ci.datasource.ec2.strict_id=true quiet'),
    'true',
  );
  assert.equal(mode({}, 'ci.datasource.ec2.strict_id=warn'), 'warn');
  const c = ctx(t, {}, { datasource: { Ec2: { strict_id: 'maybe' } } });
  assert.equal(ec2StrictMode(c), 'true');
  assert.match(c.sink.lines.join(''), /strict_id 'maybe' is not true, false or warn/);
});

test('detect: an identified lookalike needs no strict_id; an unknown one needs false or warn', async (t) => {
  assert.equal(await ec2Source.detect(ctx(t, { sys_vendor: 'e24cloud' })), true);
  assert.equal(await ec2Source.detect(ctx(t, { sys_vendor: 'QEMU' })), false);
  assert.equal(
    await ec2Source.detect(ctx(t, { sys_vendor: 'QEMU' }, { datasource: { Ec2: { strict_id: 'warn' } } })),
    true,
  );
});

test('Ec2Local (a lease in init-local) only on AWS and Outscale, as cloud-init', async (t) => {
  const evidence = (dmi: Record<string, string>) => ec2Source.localEvidence?.(ctx(t, dmi));
  assert.equal(await evidence({ sys_vendor: 'Amazon EC2' }), true);
  assert.equal(await evidence({ sys_vendor: '3DS Outscale', product_name: '3DS Outscale VM' }), true);
  assert.equal(await evidence({ product_serial: 'srv-abcde.gb1.brightbox.com' }), false);
  assert.equal(await evidence({ sys_vendor: 'QEMU' }), false);
});

test('a lookalike is read over IMDSv1: no token PUT, no identity document; AWS still asks for a token', async (t) => {
  const tree = join(FIXTURES, 'sources/ec2/lookalike-tree');
  const server = await mockMetadataServer(t, { kind: 'ec2', dir: tree });
  const c = ctx(t, { chassis_asset_tag: 'abc.zstack.io' });
  const data = await ec2Source.crawl({
    ...c,
    settings: { timeout: 2, max_wait: 5 },
    baseUrl: server.url,
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(data.cloudName, 'zstack');
  assert.equal(data.region, 'us-east-2');
  assert.equal(server.requests.filter((r) => r.method === 'PUT').length, 0);
  assert.ok(!server.requests.some((r) => r.path.includes('/dynamic/')), 'no identity document off AWS');
  assert.ok(!data.extra?.dynamic);
  const aws = await mockMetadataServer(t, { kind: 'ec2', dir: tree });
  const awsData = await ec2Source.crawl({
    ...ctx(t, { sys_vendor: 'Amazon EC2' }),
    settings: { timeout: 2, max_wait: 5 },
    baseUrl: aws.url,
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(awsData.cloudName, 'aws');
  assert.ok(aws.requests.some((r) => r.method === 'PUT'));
  assert.ok(aws.requests.some((r) => r.path.includes('/dynamic/instance-identity/document')));
});
