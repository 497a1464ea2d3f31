// ubuntu_drivers: the debconf template loaded, the ubuntu-drivers-common install and the `ubuntu-drivers install` argv,
// as cloud-init runs them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCloudConfig } from '../../src/config/validate-cloud-config';
import { NVIDIA_DEBCONF_TEMPLATE, ubuntuDriversModule } from '../../src/modules/ubuntu-drivers';
import { putTool } from './root-files';
import { scriptedModule } from './scripted-module-platform';

const APT =
  'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';
const UBUNTU = { name: 'ubuntu', family: 'debian' as const, version: '24.04' };

test('ubuntu_drivers: installs ubuntu-drivers-common when missing, loads the latelink template through debconf, then installs nvidia:<version>', async (t) => {
  const { root, ctx, dry, commands } = scriptedModule(t, {}, UBUNTU);
  putTool(root, '/usr/bin/debconf-communicate');
  await ubuntuDriversModule.run(ctx, { drivers: { nvidia: { 'license-accepted': true, version: '535-server' } } });
  assert.deepEqual(commands(), [
    `${APT} update`,
    `${APT} install ubuntu-drivers-common`,
    'debconf-communicate -fnoninteractive cloud-init',
    'ubuntu-drivers install --gpgpu nvidia:535-server',
  ]);
  const debconf = dry.calls[2];
  assert.match(debconf?.input ?? '', /^X_LOADTEMPLATEFILE \/var\/tmp\/cloud-init\/tmp[0-9a-f]+\/nvidia\.template\n$/);
  assert.equal(debconf?.inputFile, NVIDIA_DEBCONF_TEMPLATE);
  assert.match(NVIDIA_DEBCONF_TEMPLATE, /^Template: linux\/nvidia\/latelink\nType: boolean\nDefault: true\n/);
  // The template's private folder is made 0700 and removed afterwards, as cloud-init's mkdtemp/del_dir.
  const dir = /(\/var\/tmp\/cloud-init\/tmp[0-9a-f]+)/.exec(debconf?.input ?? '')?.[1];
  assert.ok(dry.effects.some((e) => e.kind === 'mkdir' && e.path === dir && e.mode === 0o700));
  assert.ok(dry.effects.some((e) => e.kind === 'remove' && e.path === dir));
});

test('ubuntu_drivers: the licence not accepted (or a "nah" string) installs nothing; an installed ubuntu-drivers is used as is, latest version', async (t) => {
  const a = scriptedModule(t, {}, UBUNTU);
  putTool(a.root, '/usr/bin/debconf-communicate');
  await ubuntuDriversModule.run(a.ctx, { drivers: { nvidia: { 'license-accepted': 'nah' } } });
  await ubuntuDriversModule.run(a.ctx, { drivers: { nvidia: {} } });
  assert.deepEqual(a.commands(), []);
  const b = scriptedModule(t, {}, UBUNTU);
  putTool(b.root, '/usr/bin/debconf-communicate');
  putTool(b.root, '/usr/bin/ubuntu-drivers');
  await ubuntuDriversModule.run(b.ctx, { drivers: { nvidia: { 'license-accepted': 'yes' } } });
  assert.deepEqual(b.commands(), [
    'debconf-communicate -fnoninteractive cloud-init',
    'ubuntu-drivers install --gpgpu nvidia',
  ]);
});

test('ubuntu_drivers: without debconf the module warns and skips; a failing ubuntu-drivers fails the module with the warning cloud-init gives', async (t) => {
  const a = scriptedModule(t, {}, UBUNTU);
  await ubuntuDriversModule.run(a.ctx, { drivers: { nvidia: { 'license-accepted': true } } });
  assert.deepEqual(a.commands(), []);
  assert.match(
    a.ctx.problems.join('\n'),
    /WARNING: Skipping module named ubuntu_drivers, 'debconf-communicate' is not installed/,
  );
  const b = scriptedModule(
    t,
    { 'ubuntu-drivers': { code: 1, stdout: 'No drivers found for installation.\n' } },
    UBUNTU,
  );
  putTool(b.root, '/usr/bin/debconf-communicate');
  putTool(b.root, '/usr/bin/ubuntu-drivers');
  await assert.rejects(
    ubuntuDriversModule.run(b.ctx, { drivers: { nvidia: { 'license-accepted': true } } }),
    /ubuntu_drivers: 'ubuntu-drivers install --gpgpu nvidia' exited with code 1/,
  );
  assert.deepEqual(b.ctx.problems, ['WARNING: ubuntu-drivers found no drivers for installation']);
  const c = scriptedModule(
    t,
    { 'debconf-communicate': { stdout: '20 Unsupported command "x_loadtemplatefile"\n' } },
    UBUNTU,
  );
  putTool(c.root, '/usr/bin/debconf-communicate');
  putTool(c.root, '/usr/bin/ubuntu-drivers');
  await assert.rejects(
    ubuntuDriversModule.run(c.ctx, { drivers: { nvidia: { 'license-accepted': true } } }),
    /Failed to register NVIDIA debconf template: 20 Unsupported/,
  );
  assert.deepEqual(c.commands(), ['debconf-communicate -fnoninteractive cloud-init']);
});

test('ubuntu_drivers: runs only on Ubuntu, in the final stage; the schema names a bad key and its line', () => {
  assert.deepEqual(
    [ubuntuDriversModule.distros, ubuntuDriversModule.stage, ubuntuDriversModule.frequency],
    [['ubuntu'], 'final', 'once-per-instance'],
  );
  const doc = ['#cloud-config', 'drivers:', '  nvidia:', '    license-accepted: true', '    flavour: open', ''].join(
    '\n',
  );
  assert.deepEqual(
    validateCloudConfig(doc).problems.map((p) => `${p.line} ${p.path}`),
    ['3 drivers.nvidia'],
  );
});
