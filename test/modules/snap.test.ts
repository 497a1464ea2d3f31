// cc_snap on a sandbox root: the assertions file byte-for-byte, `snap ack`, and the commands in cloud-init's order with
// its shell/argv rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCloudConfig } from '../../src/config/validate-cloud-config';
import { snapModule } from '../../src/modules/snap';
import { putTool } from './root-files';
import { scriptedModule } from './scripted-module-platform';

const UBUNTU = { name: 'ubuntu', family: 'debian', version: '22.04' } as const;

test('snap: assertions (a mapping, taken in the order given) joined by newlines into the instance file, then snap ack', async (t) => {
  const { ctx, dry, commands } = scriptedModule(t, {}, UBUNTU);
  await snapModule.run(ctx, {
    snap: {
      assertions: { '02': 'type: account-key\nauthority-id: canonical\nbody', '00': 'type: model\nseries: 16\n' },
    },
  });
  assert.equal(
    await dry.readText('/var/lib/cloud/instance/snapd.assertions'),
    'type: account-key\nauthority-id: canonical\nbody\ntype: model\nseries: 16\n',
  );
  assert.deepEqual(commands(), ['snap ack /var/lib/cloud/instance/snapd.assertions']);
});

test('snap: an assertion that is not a string fails the module before the file is written (cloud-init fails splitting it)', async (t) => {
  const { ctx, dry, commands } = scriptedModule(t, {}, UBUNTU);
  await assert.rejects(
    snapModule.run(ctx, { snap: { assertions: ['type: model', { type: 'model' }] } }),
    /each snap assertion must be a string, not \{"type":"model"\}/,
  );
  assert.equal(await dry.exists('/var/lib/cloud/instance/snapd.assertions'), false);
  assert.deepEqual(commands(), []);
});

test('snap: a failing snap ack fails the module before any command runs', async (t) => {
  const { ctx, commands } = scriptedModule(
    t,
    { 'snap ack /var/lib/cloud/instance/snapd.assertions': { code: 1, stderr: 'error: cannot assert: bad signature' } },
    UBUNTU,
  );
  await assert.rejects(
    snapModule.run(ctx, { snap: { assertions: ['x'], commands: ['snap install vlc'] } }),
    /snap ack .* exited with code 1: error: cannot assert/,
  );
  assert.deepEqual(commands(), ['snap ack /var/lib/cloud/instance/snapd.assertions']);
});

test('snap: commands in key order; lists get snap prepended (a leading null runs another program), strings run through sh with a warning when not snap', async (t) => {
  const { ctx, dry } = scriptedModule(t, {}, UBUNTU);
  await snapModule.run(ctx, {
    snap: {
      commands: {
        '10': 'echo not-snap',
        '2': ['install', 'vlc'],
        '01': ['snap', 'install', 'core'],
        '3': [null, 'ls', '-l'],
        '00': 'snap install hello',
      },
    },
  });
  assert.deepEqual(
    dry.calls.map((c) => c.argv),
    [
      ['sh', '-c', 'snap install hello'],
      ['snap', 'install', 'core'],
      ['snap', 'install', 'vlc'],
      ['ls', '-l'],
      ['sh', '-c', 'echo not-snap'],
    ],
  );
  assert.ok(ctx.lines.some((l) => l.includes('Non-snap commands in snap config:\necho not-snap')));
});

test('snap: every command runs even after one fails; the failures are reported together', async (t) => {
  const { ctx, commands } = scriptedModule(
    t,
    { 'snap install nope': { code: 1 }, 'sh -c snap refresh bad': { code: 2 } },
    UBUNTU,
  );
  await assert.rejects(
    snapModule.run(ctx, { snap: { commands: [['install', 'nope'], 'snap refresh bad', ['install', 'ok']] } }),
    (err: Error) => {
      assert.match(
        err.message,
        /Failures running snap commands:\n\["snap","install","nope"\] exited with code 1\n"snap refresh bad" exited with code 2/,
      );
      return true;
    },
  );
  assert.deepEqual(commands(), ['snap install nope', 'sh -c snap refresh bad', 'snap install ok']);
});

test('snap: an empty section or empty lists do nothing; a command that is neither string nor list is an error', async (t) => {
  const { ctx, commands } = scriptedModule(t, {}, UBUNTU);
  await snapModule.run(ctx, { snap: {} });
  await snapModule.run(ctx, { snap: { assertions: [], commands: {} } });
  assert.deepEqual(commands(), []);
  await assert.rejects(
    snapModule.run(ctx, { snap: { commands: [42] } }),
    /These commands are not a string or list:\n42/,
  );
});

test('snap: is verified only on ubuntu, as cloud-init declares it', () => {
  assert.deepEqual(snapModule.distros, ['ubuntu']);
});

test('snap: the schema names a bad key and its line', () => {
  const doc = ['#cloud-config', 'snap:', '  commands: [[install, vlc]]', '  assertion: [x]', 'runcmd: [ls]', ''].join(
    '\n',
  );
  assert.deepEqual(
    validateCloudConfig(doc).problems.map((p) => `${p.line} ${p.path}`),
    ['2 snap'],
  );
  const bad = ['#cloud-config', 'snap:', '  commands:', '    00: 5', ''].join('\n');
  assert.deepEqual(
    validateCloudConfig(bad).problems.map((p) => `${p.line} ${p.path}`),
    ['4 snap.commands.0', '4 snap.commands.0'],
  );
});

test('snap waits for snapd to load its seed once ever, as 25.1 (the semaphore sem/snap_seeded.once; no wait without a snap command)', async (t) => {
  const { ctx, dry, commands } = scriptedModule(t, {}, UBUNTU);
  await snapModule.run(ctx, { snap: { commands: [['install', 'hello']] } });
  assert.deepEqual(commands(), ['snap install hello']);
  assert.equal(await dry.exists('/var/lib/cloud/sem/snap_seeded.once'), true);
  const again = scriptedModule(t, {}, UBUNTU);
  putTool(again.root, '/usr/bin/snap');
  await snapModule.run(again.ctx, { snap: { commands: [['install', 'hello']] } });
  await snapModule.run(again.ctx, { snap: { commands: [['install', 'world']] } });
  assert.deepEqual(again.commands(), ['snap wait system seed.loaded', 'snap install hello', 'snap install world']);
});
