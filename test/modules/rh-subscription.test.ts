// rh_subscription: the subscription-manager argvs in cloud-init's order (identity first), new and dashed keys, secrets
// kept out of the log.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCloudConfig } from '../../src/config/validate-cloud-config';
import { registerArgv, rhSubscriptionModule } from '../../src/modules/rh-subscription';
import { putTool } from './root-files';
import { scriptedModule } from './scripted-module-platform';

const RHEL = { name: 'rhel', family: 'redhat' as const, version: '9.4' };
const SM = 'subscription-manager';
/** The scripted platform with a subscription-manager in the root for the module to find. */
function withSubMan(...args: Parameters<typeof scriptedModule>) {
  const s = scriptedModule(...args);
  putTool(s.root, '/usr/sbin/subscription-manager');
  return s;
}
const NOT_REGISTERED = { [`${SM} identity`]: { code: 1, stderr: 'This system is not yet registered.' } };

test('rh_subscription: identity, register by activation key, attach with service level, pools, repos, release; the key never logged', async (t) => {
  const { ctx, dry, commands } = withSubMan(
    t,
    {
      ...NOT_REGISTERED,
      [`${SM} register --activationkey=s3cr3t-key --org=123456 --baseurl=https://cdn.example --serverurl=sub.example`]:
        { stdout: 'The system has been registered with ID: 1234-abcd \n' },
      [`${SM} list --available --pool-only`]: { stdout: 'pool-a\npool-b\npool-c\n' },
      [`${SM} list --consumed --pool-only`]: { stdout: 'pool-c\n' },
      [`${SM} repos --list-enabled`]: { stdout: 'Repo ID:   rhel-9-baseos\nRepo Name: BaseOS\n' },
      [`${SM} repos --list-disabled`]: { stdout: 'Repo ID:   rhel-9-appstream-debug\nRepo ID:   codeready\n' },
    },
    RHEL,
  );
  await rhSubscriptionModule.run(ctx, {
    rh_subscription: {
      'activation-key': 's3cr3t-key',
      org: 123456,
      'auto-attach': true,
      service_level: 'self-support',
      add_pool: ['pool-a', 'pool-c', 'pool-x'],
      enable_repo: ['codeready', 'rhel-9-baseos', 'nope'],
      disable_repo: ['rhel-9-baseos', 'rhel-9-appstream-debug'],
      'rhsm-baseurl': 'https://cdn.example',
      server_hostname: 'sub.example',
      release_version: '9.4',
    },
  });
  assert.deepEqual(commands(), [
    `${SM} identity`,
    `${SM} register --activationkey=s3cr3t-key --org=123456 --baseurl=https://cdn.example --serverurl=sub.example`,
    `${SM} attach --auto --servicelevel=self-support`,
    `${SM} list --available --pool-only`,
    `${SM} list --consumed --pool-only`,
    `${SM} attach --pool=pool-a`,
    `${SM} repos --list-enabled`,
    `${SM} repos --list-disabled`,
    `${SM} repos --disable=rhel-9-baseos --enable=codeready`,
    `${SM} release --set=9.4`,
  ]);
  assert.ok(dry.effects.some((e) => e.kind === 'remove' && e.path === '/var/cache/dnf'));
  assert.ok(dry.effects.some((e) => e.kind === 'remove' && e.path === '/var/cache/yum'));
  assert.deepEqual(ctx.problems, [
    'WARNING: Pool pool-c is not available',
    'WARNING: Pool pool-x is not available',
    'WARNING: Repo nope does not appear to exist',
  ]);
  assert.ok(
    dry
      .shownCommands()
      .includes(
        `${SM} register --activationkey=REDACTED --org=123456 --baseurl=https://cdn.example --serverurl=sub.example`,
      ),
  );
  assert.ok(!JSON.stringify(dry.effects).includes('s3cr3t-key'));
  assert.ok(!ctx.lines.join('\n').includes('s3cr3t-key'));
  assert.match(ctx.lines.join('\n'), /Registered successfully with ID 1234-abcd\n?/);
});

test('rh_subscription: username and password, auto-attach only; the password is redacted; a registered system stops after identity', async (t) => {
  const a = withSubMan(
    t,
    { ...NOT_REGISTERED, [`${SM} register --username=alice --password=pa55 word`]: { stdout: 'ID: 42\n' } },
    RHEL,
  );
  await rhSubscriptionModule.run(a.ctx, {
    rh_subscription: { username: 'alice', password: 'pa55 word', auto_attach: 'yes' },
  });
  assert.deepEqual(a.commands(), [
    `${SM} identity`,
    `${SM} register --username=alice --password=pa55 word`,
    `${SM} attach --auto`,
  ]);
  assert.ok(a.dry.shownCommands().includes(`${SM} register --username=alice --password=REDACTED`));
  assert.ok(!a.ctx.lines.join('\n').includes('pa55 word') && !JSON.stringify(a.dry.effects).includes('pa55 word'));
  const b = withSubMan(t, {}, RHEL);
  await rhSubscriptionModule.run(b.ctx, { rh_subscription: { username: 'alice', password: 'x' } });
  assert.deepEqual(b.commands(), [`${SM} identity`]);
  assert.match(b.ctx.lines.join('\n'), /System is already registered/);
});

test('rh_subscription: not configured does nothing; service_level without auto_attach, a failed register and a failed attach warn and stop', async (t) => {
  const a = withSubMan(t, {}, RHEL);
  await rhSubscriptionModule.run(a.ctx, { rh_subscription: { username: 'alice', org: 'x' } });
  assert.deepEqual(a.commands(), []);
  const b = withSubMan(t, NOT_REGISTERED, RHEL);
  await rhSubscriptionModule.run(b.ctx, {
    rh_subscription: { username: 'u', password: 'p', 'service-level': 'premium' },
  });
  assert.deepEqual(b.commands(), [`${SM} identity`]);
  assert.deepEqual(b.ctx.problems, [
    'WARNING: The service_level key must be used in conjunction with the auto_attach key.  Please re-run with auto_attach: True',
    'WARNING: rh_subscription plugin did not complete successfully',
  ]);
  const c = withSubMan(
    t,
    { ...NOT_REGISTERED, [`${SM} register --activationkey=k --org=o`]: { code: 64, stderr: 'Invalid credentials' } },
    RHEL,
  );
  await rhSubscriptionModule.run(c.ctx, { rh_subscription: { 'activation-key': 'k', org: 'o', auto_attach: true } });
  assert.deepEqual(c.commands(), [`${SM} identity`, `${SM} register --activationkey=k --org=o`]);
  assert.deepEqual(c.ctx.problems, [
    'WARNING: Registration failed due to: Invalid credentials',
    'WARNING: Registration failed or did not run completely',
    'WARNING: rh_subscription plugin did not complete successfully',
  ]);
  const d = withSubMan(
    t,
    {
      ...NOT_REGISTERED,
      [`${SM} register --username=u --password=p`]: { stdout: 'ID: 1\n' },
      [`${SM} attach --auto --servicelevel=gold`]: { code: 1, stdout: 'Service level gold is not available\n' },
    },
    RHEL,
  );
  await rhSubscriptionModule.run(d.ctx, {
    rh_subscription: { username: 'u', password: 'p', auto_attach: true, service_level: 'gold', enable_repo: ['x'] },
  });
  assert.equal(d.commands().length, 3);
  assert.deepEqual(d.ctx.problems.slice(0, 2), [
    'WARNING: Service level gold is not available',
    'WARNING: Setting of service_level failed',
  ]);
});

test('rh_subscription: without subscription-manager nothing runs: not registered, and registration fails with no output to report, as cloud-init', async (t) => {
  const { ctx, commands } = scriptedModule(t, {}, RHEL);
  await rhSubscriptionModule.run(ctx, { rh_subscription: { username: 'u', password: 'p' } });
  assert.deepEqual(commands(), []);
  assert.deepEqual(ctx.problems, [
    'WARNING: Registration failed or did not run completely',
    'WARNING: rh_subscription plugin did not complete successfully',
  ]);
});

test("rh_subscription: register argv, RHEL and Fedora only, schema with 25.1's dashed keys (not deprecated, as in 25.1) and 25.3's names", () => {
  assert.deepEqual(registerArgv({ username: 'u', password: 'p', activation_key: 'k' }), [
    SM,
    'register',
    '--username=u',
    '--password=p',
  ]);
  assert.equal(registerArgv({ activation_key: 'k' }), undefined);
  assert.deepEqual([rhSubscriptionModule.distros, rhSubscriptionModule.stage], [['fedora', 'rhel'], 'config']);
  const doc = [
    '#cloud-config',
    'rh_subscription:',
    '  username: u',
    '  password: p',
    '  auto-attach: true',
    '  add_pool: pool',
    '  sku: x',
    '',
  ].join('\n');
  const problems = validateCloudConfig(doc).problems;
  assert.deepEqual(
    problems.filter((p) => p.kind !== 'deprecation').map((p) => `${p.line} ${p.path}`),
    ['2 rh_subscription', '6 rh_subscription.add_pool'],
  );
  assert.deepEqual(
    problems.filter((p) => p.kind === 'deprecation').map((p) => `${p.line} ${p.path}`),
    [],
  );
  const newer = [
    '#cloud-config',
    'rh_subscription:',
    '  auto_attach: true',
    '  enable_repo: [a]',
    '  enable-repo: [b]',
    '',
  ].join('\n');
  assert.deepEqual(validateCloudConfig(newer).problems, []);
});

test("rh_subscription: what 25.1's schema rejects and its module acts on: a quoted auto-attach, a number, a pool or repos not a list register first and then stop with a warning", async (t) => {
  const a = withSubMan(
    t,
    { ...NOT_REGISTERED, [`${SM} register --username=7 --password=p`]: { stdout: 'ID: 7\n' } },
    RHEL,
  );
  await rhSubscriptionModule.run(a.ctx, {
    rh_subscription: { username: 7, password: 'p', 'auto-attach': 'no', 'add-pool': 'pool-a' },
  });
  // A quoted false word passes the boolean check and, being truthy, still attaches (as upstream).
  assert.deepEqual(a.commands(), [`${SM} identity`, `${SM} register --username=7 --password=p`, `${SM} attach --auto`]);
  assert.deepEqual(a.ctx.problems, [
    'WARNING: Pools must in the format of a list',
    'WARNING: rh_subscription plugin did not complete successfully',
  ]);
  const b = withSubMan(
    t,
    { ...NOT_REGISTERED, [`${SM} register --activationkey=k --org=o`]: { stdout: 'ID: 8\n' } },
    RHEL,
  );
  await rhSubscriptionModule.run(b.ctx, {
    rh_subscription: { activation_key: 'k', org: 'o', 'enable-repo': 'codeready', auto_attach: 'maybe' },
  });
  assert.deepEqual(b.commands(), [`${SM} identity`]);
  assert.deepEqual(b.ctx.problems, [
    'WARNING: The key auto_attach must be a boolean value (True/False)',
    'WARNING: rh_subscription plugin did not complete successfully',
  ]);
  const c = withSubMan(
    t,
    { ...NOT_REGISTERED, [`${SM} register --activationkey=k --org=o`]: { stdout: 'ID: 8\n' } },
    RHEL,
  );
  await rhSubscriptionModule.run(c.ctx, {
    rh_subscription: { 'activation-key': 'k', org: 'o', disable_repo: 'x', sku: 'ignored' },
  });
  assert.deepEqual(c.commands(), [`${SM} identity`, `${SM} register --activationkey=k --org=o`]);
  assert.deepEqual(c.ctx.problems, [
    'WARNING: Repo IDs must in the format of a list.',
    'WARNING: Unable to add or remove repos',
    'WARNING: rh_subscription plugin did not complete successfully',
  ]);
  const d = withSubMan(t, {}, RHEL);
  await rhSubscriptionModule.run(d.ctx, { rh_subscription: null });
  assert.deepEqual(d.commands(), []);
  assert.match(d.ctx.lines.join('\n'), /rh_subscription: module not configured\./);
  await assert.rejects(rhSubscriptionModule.run(d.ctx, { rh_subscription: 'alice' }), {
    name: 'ModuleError',
    message: `rh_subscription: 'rh_subscription' must be a mapping, not "alice"`,
  });
});
