// cc_wireguard on a sandbox root: the interface files (bytes, mode 0600), the install and kernel module steps,
// wg-quick@ units and readiness probes.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { release } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { validateCloudConfig } from '../../src/config/validate-cloud-config';
import { wireguardModule, wireguardPackages } from '../../src/modules/wireguard';
import { putTool } from './root-files';
import { scriptedModule } from './scripted-module-platform';

const UBUNTU = { name: 'ubuntu', family: 'debian', version: '22.04' } as const;
const APT =
  'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';
const WG0 =
  '[Interface]\nPrivateKey = aGVsbG8=\nAddress = 10.10.0.2/24\n\n[Peer]\nPublicKey = d29ybGQ=\nEndpoint = 192.0.2.1:51820\nAllowedIPs = 10.10.0.0/24\n';

test('wireguard: installs wireguard-tools, loads the module, writes each config 0600, enables and restarts wg-quick@, runs the probes', async (t) => {
  const { root, ctx, dry, commands } = scriptedModule(
    t,
    { 'sh -c lsmod': { stdout: 'Module Size Used by\nip_tables 32768 0\n' } },
    UBUNTU,
  );
  mkdirSync(join(root, 'run/systemd/system'), { recursive: true });
  await wireguardModule.run(ctx, {
    wireguard: {
      interfaces: [
        { name: 'wg0', config_path: '/etc/wireguard/wg0.conf', content: WG0 },
        { name: 'wg1', config_path: '/etc/wireguard/wg1.conf', content: '[Interface]\nPrivateKey = x\n' },
      ],
      readinessprobe: ['systemctl restart service', 'nc -zv 10.10.0.1 443'],
    },
  });
  assert.equal(await dry.readText('/etc/wireguard/wg0.conf'), WG0);
  assert.equal(await dry.readText('/etc/wireguard/wg1.conf'), '[Interface]\nPrivateKey = x\n');
  const modes = dry.effects.flatMap((e) =>
    e.kind === 'write-file' && e.path.startsWith('/etc/wireguard/') ? [`${e.path} ${e.mode?.toString(8)}`] : [],
  );
  assert.deepEqual(modes, ['/etc/wireguard/wg0.conf 600', '/etc/wireguard/wg1.conf 600']);
  assert.deepEqual(commands(), [
    `${APT} update`,
    `${APT} install ${wireguardPackages(release()).join(' ')}`,
    'sh -c lsmod',
    'sh -c modprobe wireguard',
    'systemctl enable wg-quick@wg0',
    'systemctl restart wg-quick@wg0',
    'systemctl enable wg-quick@wg1',
    'systemctl restart wg-quick@wg1',
    'sh -c systemctl restart service',
    'sh -c nc -zv 10.10.0.1 443',
  ]);
});

test('wireguard: with wg present and the module loaded, nothing is installed or loaded; no probes is fine', async (t) => {
  const { root, ctx, commands } = scriptedModule(t, { 'sh -c lsmod': { stdout: 'wireguard 94208 0\n' } }, UBUNTU);
  putTool(root, '/usr/bin/wg');
  await wireguardModule.run(ctx, {
    wireguard: { interfaces: [{ name: 'wg0', config_path: '/etc/wireguard/wg0.conf', content: WG0 }] },
  });
  // No /run/systemd/system: the distro's service tool ('enable' is its start, as cloud-init's sysvinit verbs).
  assert.deepEqual(commands(), ['sh -c lsmod', 'service wg-quick@wg0 start', 'service wg-quick@wg0 restart']);
  assert.ok(ctx.lines.some((l) => l.includes('Skipping readinessprobe - no checks defined')));
});

test('wireguard: the DKMS package joins below kernel 5.6', () => {
  assert.deepEqual(wireguardPackages('5.4.0-100-generic'), ['wireguard-tools', 'wireguard']);
  assert.deepEqual(wireguardPackages('4.19.0'), ['wireguard-tools', 'wireguard']);
  assert.deepEqual(wireguardPackages('5.6.0'), ['wireguard-tools']);
  assert.deepEqual(wireguardPackages('6.1.0-13-amd64'), ['wireguard-tools']);
});

test('wireguard: a failing modprobe, a missing key, a failing unit and failing probes each fail the module with the reason', async (t) => {
  const { root, ctx, commands } = scriptedModule(
    t,
    { 'sh -c modprobe wireguard': { code: 1, stderr: 'modprobe: FATAL: Module wireguard not found' } },
    UBUNTU,
  );
  putTool(root, '/usr/bin/wg');
  await assert.rejects(
    wireguardModule.run(ctx, { wireguard: { interfaces: [] } }),
    /Could not load wireguard module: 'modprobe wireguard' exited with code 1: modprobe: FATAL/,
  );
  assert.deepEqual(commands(), ['sh -c lsmod', 'sh -c modprobe wireguard']);

  const nul = scriptedModule(t, { 'sh -c lsmod': { stdout: 'wireguard\n' } }, UBUNTU);
  await assert.rejects(
    wireguardModule.run(nul.ctx, { wireguard: null }),
    /'wireguard' must be a mapping with an 'interfaces' list/,
  );
  assert.deepEqual(
    nul.commands().slice(1),
    [`${APT} install ${wireguardPackages(release()).join(' ')}`, 'sh -c lsmod'],
    'the install and module check come first, as in cloud-init',
  );

  const two = scriptedModule(
    t,
    { 'sh -c lsmod': { stdout: 'wireguard\n' }, 'service wg-quick@wg0 start': { code: 3 }, 'sh -c false': { code: 1 } },
    UBUNTU,
  );
  putTool(two.root, '/usr/bin/wg');
  await assert.rejects(
    wireguardModule.run(two.ctx, { wireguard: { interfaces: [{ name: 'wg0', content: 'x' }] } }),
    /Missing required wg:interfaces keys: config_path/,
  );
  await assert.rejects(
    wireguardModule.run(two.ctx, {
      wireguard: { interfaces: [{ name: 'wg0', config_path: '/etc/wireguard/wg0.conf', content: 'x' }] },
    }),
    /Failed enabling\/starting Wireguard interface\(s\):\n'service wg-quick@wg0 start' exited with code 3/,
  );

  const three = scriptedModule(
    t,
    { 'sh -c lsmod': { stdout: 'wireguard\n' }, 'sh -c false': { code: 1 }, 'sh -c exit 4': { code: 4 } },
    UBUNTU,
  );
  putTool(three.root, '/usr/bin/wg');
  await assert.rejects(
    wireguardModule.run(three.ctx, { wireguard: { interfaces: [], readinessprobe: ['false', 'true', 'exit 4'] } }),
    /Failed running readinessprobe command:\nfalse: exited with code 1\nexit 4: exited with code 4/,
  );
  assert.deepEqual(three.commands(), ['sh -c lsmod', 'sh -c false', 'sh -c true', 'sh -c exit 4']);
});

test('wireguard: the schema names a bad key and its line', () => {
  const doc = [
    '#cloud-config',
    'wireguard:',
    '  interfaces:',
    '    - name: wg0',
    '      config_path: /etc/wireguard/wg0.conf',
    '      contents: x',
    '  readinessprobe: [1]',
    '',
  ].join('\n');
  assert.deepEqual(
    validateCloudConfig(doc).problems.map((p) => `${p.line} ${p.path}`),
    ['4 wireguard.interfaces.0', '7 wireguard.readinessprobe.0'],
  );
});
