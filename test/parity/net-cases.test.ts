// The network parity cases load with their defaults, a malformed case is refused with what to fix, and the
// compared instance-data view keeps only what a datasource decides; expected requests are matched against the mock's
// log.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/temp';
import { loadNetCases } from './net-cases';
import { projectInstanceData, projectStatus } from './net-view';
import { unmetRequests } from './run-net-case';

test('every case in test/parity/net-cases loads, with the link defaults filled in', () => {
  const cases = loadNetCases();
  assert.ok(cases.length >= 2);
  for (const c of cases) {
    assert.ok(c.datasourceList.length > 0, c.name);
    assert.match(c.mac, /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/, c.name);
  }
  const ec2 = cases.find((c) => c.name.includes('ec2'));
  assert.equal(ec2?.serve.listen, '169.254.169.254:80');
  assert.deepEqual(ec2?.serve.addresses, ['169.254.169.254/32']);
});

test('a case without a serve kind, a MAC, a datasource_list or a tree, or with a gone or unknown network-up way, is refused, naming what to fix', (t) => {
  const dir = tempDir(t);
  const write = (json: unknown, tree = true) => {
    const d = join(dir, 'c');
    mkdirSync(d, { recursive: true });
    if (tree) mkdirSync(join(d, 'tree'), { recursive: true });
    writeFileSync(join(d, 'case.json'), JSON.stringify(json));
  };
  write({ mac: '0a:00:00:00:00:01', datasource_list: ['Ec2'] });
  assert.throws(() => loadNetCases(dir), /serve\.kind/);
  write({ serve: { kind: 'ec2' }, mac: '0A-00', datasource_list: ['Ec2'] });
  assert.throws(() => loadNetCases(dir), /mac/);
  write({ serve: { kind: 'ec2' }, mac: '0a:00:00:00:00:01' });
  assert.throws(() => loadNetCases(dir), /datasource_list/);
  // The init stage's network has two ways (activation, network_up): the old fixed address is refused, not ignored.
  write({
    serve: { kind: 'maas' },
    mac: '0a:00:00:00:00:01',
    datasource_list: ['MAAS'],
    init_address: '10.199.0.50/24',
  });
  assert.throws(() => loadNetCases(dir), /init_address is gone: "network_up": "dhclient"/);
  write({ serve: { kind: 'maas' }, mac: '0a:00:00:00:00:01', datasource_list: ['MAAS'], network_up: 'static' });
  assert.throws(() => loadNetCases(dir), /network_up is "dhclient" or absent/);
  write({ serve: { kind: 'maas' }, mac: '0a:00:00:00:00:01', datasource_list: ['MAAS'], network_up: 'dhclient' });
  assert.equal(loadNetCases(dir)[0]?.networkUp, 'dhclient');
});

test('the instance-data view is v1 and ds without _doc, keys sorted; sys_info and merged_cfg are left out', () => {
  const text = JSON.stringify({
    v1: { z: 1, a: 2 },
    ds: { _doc: 'x', 'meta-data': { b: 1, a: 2 } },
    sys_info: { python: '3' },
    merged_cfg: {},
  });
  assert.deepEqual(JSON.parse(projectInstanceData(text)), { ds: { 'meta-data': { a: 2, b: 1 } }, v1: { a: 2, z: 1 } });
  assert.ok(projectInstanceData(text).indexOf('"a"') < projectInstanceData(text).indexOf('"z"'));
});

test('a case may carry rootfs/ and physical_nic; serve.kind none needs no tree; status.json is reduced to the datasource name', (t) => {
  const dir = tempDir(t);
  const d = join(dir, 'c');
  mkdirSync(join(d, 'rootfs', 'etc'), { recursive: true });
  writeFileSync(
    join(d, 'case.json'),
    JSON.stringify({
      serve: { kind: 'none' },
      mac: '00:50:56:8a:00:01',
      datasource_list: ['VMware'],
      physical_nic: true,
    }),
  );
  const [c] = loadNetCases(dir);
  assert.equal(c?.rootfs, join(d, 'rootfs'));
  assert.equal(c?.physicalNic, true);
  writeFileSync(
    join(d, 'case.json'),
    JSON.stringify({ serve: { kind: 'ec2' }, mac: '00:50:56:8a:00:01', datasource_list: ['Ec2'] }),
  );
  assert.throws(() => loadNetCases(dir), /tree/, 'a served kind still needs its tree');
  const status = JSON.stringify({ v1: { datasource: 'DataSourceEc2Local', 'init-local': { start: 1 } } });
  assert.deepEqual(JSON.parse(projectStatus(status)), { v1: { datasource: 'DataSourceEc2Local' } });
});

test('expect_requests: each expected request must match some logged one in every field it gives; kernel_cmdline is optional', () => {
  const cases = loadNetCases();
  assert.deepEqual(cases.find((c) => c.name.includes('cloudstack'))?.expectRequests, [
    { domu_request: 'send_my_password', status: 200 },
    { domu_request: 'saved_password', status: 200 },
  ]);
  assert.deepEqual(cases.find((c) => c.name.includes('ec2'))?.expectRequests, []);
  assert.match(
    cases.find((c) => c.name.includes('maas-cmdline-url'))?.kernelCmdline ?? '',
    /cloud-config-url=http:\/\/10\.199\.0\.1\//,
  );
  assert.equal(cases.find((c) => c.name.includes('ec2'))?.kernelCmdline, undefined);
  const logged = [
    { method: 'GET', path: '/', status: 200, domu_request: 'send_my_password' },
    { method: 'GET', path: '/latest/meta-data/instance-id', status: 200 },
  ];
  assert.deepEqual(
    unmetRequests(logged, [
      { domu_request: 'send_my_password', status: 200 },
      { path: '/latest/meta-data/instance-id' },
    ]),
    [],
  );
  const unmet = unmetRequests(logged, [
    { domu_request: 'saved_password', status: 200 },
    { domu_request: 'send_my_password', status: 404 },
  ]);
  assert.equal(unmet.length, 2);
  assert.match(unmet[0] ?? '', /saved_password.*logged 2/);
});
