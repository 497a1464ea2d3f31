// ubuntu_pro (and its old name ubuntu_advantage): the pro client install, `pro config`, attach with the token redacted,
// enable's JSON errors, auto-attach through `pro api`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCloudConfig } from '../../src/config/validate-cloud-config';
import { findModule } from '../../src/modules/registry';
import { attachArgv, ubuntuProModule } from '../../src/modules/ubuntu-pro';
import { putTool } from './root-files';
import { scriptedModule } from './scripted-module-platform';

const APT =
  'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';
const UBUNTU = { name: 'ubuntu', family: 'debian' as const, version: '24.04' };
const TOKEN = 'C1bSecretToken42';
const SHOULD = 'pro api u.pro.attach.auto.should_auto_attach.v1';
const NOT_PRO = {
  [SHOULD]: {
    stdout: JSON.stringify({ result: 'success', data: { attributes: { should_auto_attach: false } }, errors: [] }),
  },
};

test('ubuntu_pro: installs ubuntu-advantage-tools, sets and unsets config in key order, attaches with the token redacted, enables services as JSON', async (t) => {
  const { ctx, dry, commands } = scriptedModule(
    t,
    {
      ...NOT_PRO,
      'pro enable --assume-yes --format json esm-infra livepatch fips': {
        code: 1,
        stdout: JSON.stringify({
          result: 'failure',
          errors: [
            { message: 'already', message_code: 'service-already-enabled', service: 'esm-infra', type: 'service' },
            { message: 'FIPS cannot be enabled here', message_code: 'fips-bad', service: 'fips', type: 'service' },
          ],
        }),
      },
    },
    UBUNTU,
  );
  const run = ubuntuProModule.run(ctx, {
    ubuntu_pro: {
      token: TOKEN,
      enable: ['esm-infra', 'livepatch', 'fips'],
      enable_beta: ['realtime-kernel'],
      config: {
        https_proxy: 'http://user:pw@proxy.example:3128',
        http_proxy: 'http://proxy.example:3128',
        global_apt_http_proxy: null,
      },
    },
  });
  await assert.rejects(run, /ubuntu_pro: Failure enabling Ubuntu Pro service\(s\): fips$/);
  assert.deepEqual(commands(), [
    `${APT} update`,
    `${APT} install ubuntu-advantage-tools`,
    'pro config unset global_apt_http_proxy',
    'pro config set http_proxy=http://proxy.example:3128',
    'pro config set https_proxy=http://user:pw@proxy.example:3128',
    SHOULD,
    `pro attach --no-auto-enable ${TOKEN}`,
    'pro enable --assume-yes --format json esm-infra livepatch fips',
  ]);
  const shown = dry.shownCommands();
  assert.ok(shown.includes('pro attach --no-auto-enable REDACTED'));
  assert.ok(shown.includes('pro config set https_proxy=REDACTED'));
  const everything = ctx.lines.join('\n') + JSON.stringify(dry.effects);
  assert.ok(!everything.includes(TOKEN) && !everything.includes('user:pw'));
  assert.match(ctx.lines.join('\n'), /Attaching to Ubuntu Pro\. pro attach --no-auto-enable REDACTED/);
  assert.match(ctx.lines.join('\n'), /Ignoring `ubuntu_pro.enable_beta` services in Pro attach: realtime-kernel/);
  assert.match(ctx.lines.join('\n'), /Failure enabling `fips`: FIPS cannot be enabled here/);
});

test('ubuntu_pro: attach exit 2 (already attached) is success; a failed attach names no token; non-JSON from enable fails', async (t) => {
  const a = scriptedModule(t, { ...NOT_PRO, [`pro attach ${TOKEN}`]: { code: 2 } }, UBUNTU);
  putTool(a.root, '/usr/bin/pro');
  await ubuntuProModule.run(a.ctx, { ubuntu_pro: { token: TOKEN } });
  assert.deepEqual(a.commands(), [SHOULD, `pro attach ${TOKEN}`]);
  const b = scriptedModule(
    t,
    { ...NOT_PRO, [`pro attach ${TOKEN}`]: { code: 1, stderr: `invalid token ${TOKEN}` } },
    UBUNTU,
  );
  putTool(b.root, '/usr/bin/pro');
  const err = await ubuntuProModule.run(b.ctx, { ubuntu_pro: { token: TOKEN } }).then(
    () => undefined,
    (e: Error) => e,
  );
  assert.match(err?.message ?? '', /Failure attaching Ubuntu Pro:\n.*Stderr: invalid token REDACTED/s);
  assert.ok(!String(err?.message).includes(TOKEN) && !b.ctx.lines.join('\n').includes(TOKEN));
  const c = scriptedModule(
    t,
    { ...NOT_PRO, 'pro enable --assume-yes --format json esm-apps': { stdout: 'Traceback' } },
    UBUNTU,
  );
  putTool(c.root, '/usr/bin/pro');
  await assert.rejects(
    ubuntuProModule.run(c.ctx, { ubuntu_pro: { token: TOKEN, enable: 'esm-apps' } }),
    /Pro response was not json: Traceback/,
  );
  assert.deepEqual(c.ctx.problems, [
    'WARNING: ubuntu_pro: enable should be a list, not a string; treating as a single enable',
  ]);
});

test('ubuntu_pro: a Pro instance auto-attaches through the pro API; disable_auto_attach skips the check; no token on a non-Pro instance fails', async (t) => {
  const FULL =
    'pro api u.pro.attach.auto.full_auto_attach.v1 --data {"enable":["fips"],"enable_beta":["realtime-kernel"]}';
  const IS_PRO = {
    [SHOULD]: { stdout: JSON.stringify({ result: 'success', data: { attributes: { should_auto_attach: true } } }) },
  };
  const a = scriptedModule(
    t,
    { ...IS_PRO, [FULL]: { stdout: JSON.stringify({ result: 'success', data: {}, errors: [] }) } },
    UBUNTU,
  );
  putTool(a.root, '/usr/bin/pro');
  await ubuntuProModule.run(a.ctx, { ubuntu_pro: { enable: ['fips'], enable_beta: ['realtime-kernel'] } });
  assert.deepEqual(a.commands(), [SHOULD, FULL]);
  assert.deepEqual(a.ctx.problems, []);
  // Already attached: a warning that enable/enable_beta are ignored, not a failure; any other API error fails the
  // module.
  const already = scriptedModule(
    t,
    {
      ...IS_PRO,
      [FULL]: {
        code: 1,
        stdout: JSON.stringify({
          result: 'failure',
          errors: [{ code: 'already-attached', title: 'This machine is already attached' }],
        }),
      },
    },
    UBUNTU,
  );
  putTool(already.root, '/usr/bin/pro');
  await ubuntuProModule.run(already.ctx, { ubuntu_pro: { enable: ['fips'], enable_beta: ['realtime-kernel'] } });
  assert.match(already.ctx.problems.join('\n'), /already attached to Pro\. Leaving enabled services untouched/);
  const broken = scriptedModule(
    t,
    {
      ...IS_PRO,
      [FULL]: {
        code: 1,
        stdout: JSON.stringify({
          result: 'failure',
          errors: [{ code: 'connectivity-error', title: 'Failed to connect' }],
        }),
      },
    },
    UBUNTU,
  );
  putTool(broken.root, '/usr/bin/pro');
  await assert.rejects(
    ubuntuProModule.run(broken.ctx, { ubuntu_pro: { enable: ['fips'], enable_beta: ['realtime-kernel'] } }),
    /Error during `full_auto_attach`: Failed to connect$/,
  );
  const b = scriptedModule(t, {}, UBUNTU);
  putTool(b.root, '/usr/bin/pro');
  await ubuntuProModule.run(b.ctx, { ubuntu_pro: { features: { disable_auto_attach: true } } });
  assert.deepEqual(b.commands(), []);
  const c = scriptedModule(t, { pro: { code: 1, stderr: 'no such api' } }, UBUNTU);
  putTool(c.root, '/usr/bin/pro');
  await assert.rejects(
    ubuntuProModule.run(c.ctx, { ubuntu_pro: { enable: ['fips'] } }),
    /`ubuntu_pro.token` required in non-Pro Ubuntu instances\./,
  );
  assert.deepEqual(c.ctx.problems, [
    'WARNING: Unable to determine if this is an Ubuntu Pro instance. Fallback to normal Pro attach.',
  ]);
});

test('ubuntu_pro: the deprecated ubuntu_advantage key and module name still work; bad proxies and old commands fail before attaching', async (t) => {
  assert.equal(findModule('ubuntu_advantage'), ubuntuProModule);
  assert.equal(findModule('cc_ubuntu-advantage'), ubuntuProModule);
  assert.deepEqual(ubuntuProModule.activateBy, ['ubuntu_pro', 'ubuntu-advantage', 'ubuntu_advantage']);
  const a = scriptedModule(t, NOT_PRO, UBUNTU);
  putTool(a.root, '/usr/bin/pro');
  await ubuntuProModule.run(a.ctx, { ubuntu_advantage: { token: TOKEN } });
  assert.deepEqual(a.commands(), [SHOULD, `pro attach ${TOKEN}`]);
  assert.deepEqual(a.ctx.problems, [
    'WARNING: Deprecated configuration key(s) provided: ubuntu_advantage. Expected "ubuntu_pro"; will attempt to continue.',
  ]);
  const b = scriptedModule(t, NOT_PRO, UBUNTU);
  putTool(b.root, '/usr/bin/pro');
  await assert.rejects(
    ubuntuProModule.run(b.ctx, { ubuntu_pro: { token: TOKEN, config: { http_proxy: 'ftp://secret@x' } } }),
    /Invalid ubuntu_pro configuration:\nExpected URL scheme http\/https for ua:config:http_proxy$/,
  );
  await assert.rejects(
    ubuntuProModule.run(b.ctx, { ubuntu_advantage: { commands: ['x'] } }),
    /Deprecated configuration "ubuntu-advantage: commands" provided/,
  );
  await assert.rejects(
    ubuntuProModule.run(b.ctx, { ubuntu_advantage: {}, 'ubuntu-advantage': {} }),
    /Multiple deprecated config keys provided: ubuntu-advantage, ubuntu_advantage/,
  );
  assert.deepEqual(b.commands(), []);
  assert.deepEqual(attachArgv('t', []), ['pro', 'attach', 't']);
});

test('ubuntu_pro: Ubuntu only, config stage; the schema names bad keys and lines and flags the old name', () => {
  assert.deepEqual([ubuntuProModule.distros, ubuntuProModule.stage], [['ubuntu'], 'config']);
  const doc = [
    '#cloud-config',
    'ubuntu_advantage:',
    '  token: x',
    '  enable: fips',
    '  features:',
    '    auto: true',
    '',
  ].join('\n');
  const problems = validateCloudConfig(doc).problems;
  assert.deepEqual(
    problems.filter((p) => p.kind !== 'deprecation').map((p) => `${p.line} ${p.path}`),
    ['4 ubuntu_advantage.enable', '5 ubuntu_advantage.features'],
  );
  assert.deepEqual(
    problems.filter((p) => p.kind === 'deprecation').map((p) => `${p.line} ${p.path}`),
    ['2 ubuntu_advantage'],
  );
});

test("ubuntu_pro: what 25.1's schema rejects and its module acts on: the dashed old key, ubuntu_pro preferred even when null, and its own errors after the install", async (t) => {
  const a = scriptedModule(t, NOT_PRO, UBUNTU);
  putTool(a.root, '/usr/bin/pro');
  await ubuntuProModule.run(a.ctx, { 'ubuntu-advantage': { token: TOKEN, enable: 7 } });
  assert.deepEqual(a.commands(), [SHOULD, `pro attach ${TOKEN}`]);
  assert.deepEqual(a.ctx.problems, [
    'WARNING: Deprecated configuration key(s) provided: ubuntu-advantage. Expected "ubuntu_pro"; will attempt to continue.',
    'WARNING: ubuntu_pro: enable should be a list, not a int; skipping enabling services',
  ]);
  const b = scriptedModule(t, NOT_PRO, UBUNTU);
  putTool(b.root, '/usr/bin/pro');
  await ubuntuProModule.run(b.ctx, { ubuntu_pro: null, ubuntu_advantage: { token: TOKEN } });
  assert.deepEqual(b.commands(), []);
  assert.deepEqual(b.ctx.problems, [
    'WARNING: Deprecated configuration key(s) provided: ubuntu_advantage. Expected "ubuntu_pro"; will attempt to continue.',
    'WARNING: Ignoring deprecated key ubuntu_advantage and preferring ubuntu_pro config',
  ]);
  assert.match(b.ctx.lines.join('\n'), /Skipping module named ubuntu_pro, no 'ubuntu_pro' configuration found/);
  await assert.rejects(ubuntuProModule.run(b.ctx, { ubuntu_pro: 'token' }), {
    name: 'ModuleError',
    message: "ubuntu_pro: 'ubuntu_pro' should be a dict, not a str",
  });
  const c = scriptedModule(t, NOT_PRO, UBUNTU);
  putTool(c.root, '/usr/bin/pro');
  await assert.rejects(
    ubuntuProModule.run(c.ctx, {
      ubuntu_pro: { token: TOKEN, config: { http_proxy: null, proxy_x: 3 }, features: { disable_auto_attach: 'yes' } },
    }),
    {
      name: 'ModuleError',
      message: "ubuntu_pro: 'ubuntu_pro.features.disable_auto_attach' should be a bool, not a str",
    },
  );
  assert.deepEqual(c.commands(), ['pro config unset http_proxy', 'pro config set proxy_x=3']);
  assert.deepEqual(c.ctx.problems, ['WARNING: Not validating unknown ubuntu_pro.config.proxy_x property']);
  await assert.rejects(ubuntuProModule.run(c.ctx, { ubuntu_pro: { token: TOKEN, config: ['x'] } }), {
    name: 'ModuleError',
    message: 'ubuntu_pro: ubuntu_pro: config should be a dict, not a list; skipping enabling config parameters',
  });
});
