// Modules that read their config typed by the schema (src/modules/support/config-module.ts): the keys they name are
// checked once against the cloud-config schema before they run, and only those keys reach them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLOUD_CONFIG_SCHEMA } from '../../src/config/schema/cloud-config';
import { type Module, ModuleError } from '../../src/modules/module';
import { findModule } from '../../src/modules/registry';
import { configModule } from '../../src/modules/support/config-module';
import { OwnParser, readConfigValue, WarningReader } from '../../src/modules/support/config-readers';
import { REPO } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';
import { moduleContext } from './module-context';

/** The registered module NAME (the test fails when there is none). */
function moduleNamed(name: string): Module {
  const mod = findModule(name);
  assert.ok(mod, `no module named ${name}`);
  return mod;
}

/** What the tests' probe modules declare besides their keys. */
const PROBE_MODULE: Pick<Module, 'name' | 'stage' | 'frequency' | 'distros' | 'activateBy'> = {
  name: 'probe',
  stage: 'config',
  frequency: 'always',
  distros: 'all',
  activateBy: [],
};

/** The modules converted to typed config: none of them may go back to reading the whole config untyped. */
const TYPED_MODULES = [
  'timezone',
  'locale',
  'resolv_conf',
  'ca_certs',
  'keys_to_console',
  'spacewalk',
  'salt_minion',
  'disable_ec2_metadata',
  'fan',
  'final_message',
  'keyboard',
  'runcmd',
  'bootcmd',
  'apt_pipelining',
  'scripts_vendor',
  'seed_random',
  'resizefs',
  'write_files',
  'write_files_deferred',
  'power_state_change',
  'growpart',
  'install_hotplug',
  'apk_configure',
  'ubuntu_drivers',
  'wireguard',
  'grub_dpkg',
  'snap',
  'ntp',
  'set_hostname',
  'update_hostname',
  'update_etc_hosts',
  'ssh_import_id',
  'ssh_authkey_fingerprints',
  'zypper_add_repo',
  'rsyslog',
  'set_passwords',
  'rh_subscription',
  'ubuntu_pro',
  'disk_setup',
  'mounts',
  'raspberry_pi',
  'package_update_upgrade_install',
  'lxd',
  'chef',
  'puppet',
  'ansible',
  'byobu',
  'mcollective',
  'yum_add_repo',
  'apt_configure',
  'ubuntu_autoinstall',
  'landscape',
  'phone_home',
  'ssh',
  'users_groups',
];

/**
 * The top-level keys outside the schema a typed module still reads (by its own parser, as configModule requires):
 * 25.1's module reads them, and 25.1's schema rejects them as unknown.
 */
const OFF_SCHEMA_KEYS: Readonly<Record<string, readonly string[]>> = { ubuntu_pro: ['ubuntu-advantage'] };

test('each typed module names schema keys and its file reads no untyped config', () => {
  const known = new Set(Object.keys(CLOUD_CONFIG_SCHEMA.properties));
  for (const name of TYPED_MODULES) {
    const mod = findModule(name);
    assert.ok(mod, name);
    assert.ok(mod.configKeys && mod.configKeys.length > 0, `${name} is not made by configModule (no configKeys)`);
    for (const key of mod.configKeys)
      assert.ok(
        known.has(key) || OFF_SCHEMA_KEYS[name]?.includes(key),
        `${name}: ${key} is not a cloud-config key of the schema`,
      );
    const source = readFileSync(join(REPO, 'src/modules', `${name.replace(/_/g, '-')}.ts`), 'utf8');
    for (const untyped of [/Record<string, unknown>/, /\bCloudConfig\b/, /\bcfg(String|List|Map|Bool|Record)\(/]) {
      assert.doesNotMatch(source, untyped, `${name} reads its config untyped again`);
    }
  }
});

test('a typed module gets only its keys, as given, and nothing when none is set', async (t) => {
  const seen: unknown[] = [];
  const probe = configModule({
    ...PROBE_MODULE,
    configKeys: { timezone: 'str', ntp: 'as-is' },
    async run(_ctx, cfg) {
      seen.push(cfg);
    },
  });
  const ctx = moduleContext(tempDir(t));
  await probe.run(ctx, { timezone: 'UTC', ntp: { servers: ['a', 'b'] }, runcmd: ['x'], not_in_schema: 1 });
  await probe.run(ctx, { runcmd: ['x'] });
  assert.deepEqual(seen, [{ timezone: 'UTC', ntp: { servers: ['a', 'b'] } }, {}]);
  assert.deepEqual(probe.configKeys, ['timezone', 'ntp']);
});

test("a typed module whose keys, as read, break the schema fails with a ModuleError naming the key and the schema's message", async (t) => {
  const ctx = moduleContext(tempDir(t));
  // generate_resolv_conf meets a string where it wants a mapping and fails; so does the typed module, naming the key.
  await assert.rejects(
    moduleNamed('resolv_conf').run(ctx, { manage_resolv_conf: true, resolv_conf: 'nameserver 1.1.1.1' }),
    (err: unknown) => {
      assert.ok(err instanceof ModuleError);
      assert.equal(
        err.message,
        "resolv_conf: Invalid cloud-config: resolv_conf: 'nameserver 1.1.1.1' is not of type 'object'",
      );
      return true;
    },
  );
  await assert.rejects(moduleNamed('ca_certs').run(ctx, { ca_certs: { trusted: [1, 'x'] } }), {
    name: 'ModuleError',
    message: "ca_certs: Invalid cloud-config: ca_certs.trusted.0: 1 is not of type 'string'",
  });
});

test("a key read by the module's own parser reaches it as parsed, unjudged by the schema; the other keys are still checked", async (t) => {
  const seen: unknown[] = [];
  const probe = configModule({
    ...PROBE_MODULE,
    // lxd's ipv4_nat: "true" is one the schema rejects and 25.1's module takes.
    configKeys: {
      lxd: new OwnParser((value) => ({ parsed: JSON.stringify(value) })),
      timezone: 'as-is',
    },
    async run(_ctx, cfg) {
      const parsed: string | undefined = cfg.lxd?.parsed;
      seen.push(parsed);
    },
  });
  const ctx = moduleContext(tempDir(t));
  await probe.run(ctx, { lxd: { bridge: { ipv4_nat: 'true' } } });
  assert.deepEqual(seen, ['{"bridge":{"ipv4_nat":"true"}}']);
  await assert.rejects(probe.run(ctx, { lxd: 1, timezone: 5 }), {
    name: 'ModuleError',
    message: "probe: Invalid cloud-config: timezone: 5 is not of type 'string'",
  });
});

test('a top-level key outside the schema is read only by an OwnParser, and reaches the module as it parses it', async (t) => {
  const seen: unknown[] = [];
  const probe = configModule({
    ...PROBE_MODULE,
    // ubuntu_pro's old `ubuntu-advantage`: 25.1's module reads it, 25.1's schema does not know it.
    configKeys: {
      ubuntu_pro: 'as-is',
      'ubuntu-advantage': new OwnParser((value) => ({ given: JSON.stringify(value) })),
    },
    async run(_ctx, cfg) {
      const given: string | undefined = cfg['ubuntu-advantage']?.given;
      seen.push(given);
    },
  });
  await probe.run(moduleContext(tempDir(t)), { 'ubuntu-advantage': { token: 5 }, runcmd: ['x'] });
  assert.deepEqual(seen, ['{"token":5}']);
  assert.deepEqual(probe.configKeys, ['ubuntu_pro', 'ubuntu-advantage']);
  configModule({
    ...PROBE_MODULE,
    // @ts-expect-error only an OwnParser may read a key the schema does not know
    configKeys: { ubuntu_pro: 'as-is', 'ubuntu-advantage': 'as-is' },
    async run() {},
  });
});

test('each key is read as the upstream module reads it: get_cfg_option_str, _bool, _list, is_false, truthiness', () => {
  assert.equal(readConfigValue('str', 5), '5');
  assert.equal(readConfigValue('str', null), 'None');
  assert.equal(readConfigValue('str', false), 'False');
  assert.equal(readConfigValue('str', [1, 'a']), "[1, 'a']");
  for (const yes of [true, 'yes', ' On ', 'TRUE', '1', 1])
    assert.equal(readConfigValue('bool', yes), true, String(yes));
  for (const no of [false, 'no', 'maybe', '', null, 0, 2, [], ['yes']])
    assert.equal(readConfigValue('bool', no), false, String(no));
  assert.deepEqual(readConfigValue('list', 'one'), ['one']);
  assert.deepEqual(readConfigValue('list', null), []);
  assert.deepEqual(readConfigValue('list', 7), ['7']);
  assert.deepEqual(readConfigValue('list', [1, 'a']), [1, 'a']);
  assert.equal(readConfigValue('truthy', 'no'), true);
  assert.equal(readConfigValue('truthy', ''), false);
  for (const off of [false, 'no', 'Off', '0', 0]) assert.equal(readConfigValue('not-false', off), false, String(off));
  for (const on of [true, 'yes', 'maybe', null]) assert.equal(readConfigValue('not-false', on), true, String(on));
  assert.equal(readConfigValue('truthy-str', 0), undefined);
  assert.equal(readConfigValue('truthy-str', 3128), '3128');
  assert.deepEqual(readConfigValue({ a: 'str', b: 'bool' }, { a: 1, b: 'yes', c: 'never read' }), { a: '1', b: true });
  assert.equal(readConfigValue({ a: 'str' }, 'not a mapping'), 'not a mapping');
});

test("the values cloud-init 25.1's modules accept beyond the schema still work: quoted booleans, empty lists, numbers", async (t) => {
  // manage_resolv_conf: 'yes' (get_cfg_option_bool) writes resolv.conf; domain: 5 is written as Jinja prints it.
  const root = tempDir(t);
  await moduleNamed('resolv_conf').run(moduleContext(root), {
    manage_resolv_conf: 'yes',
    resolv_conf: { nameservers: ['192.0.2.53'], domain: 5, unknown: 1 },
  });
  assert.match(readFileSync(join(root, 'etc/resolv.conf'), 'utf8'), /^nameserver 192\.0\.2\.53\n\ndomain 5\n$/m);
  // ca_certs: trusted: [] and a mapping with no keys add nothing and refresh the store; a string is one certificate.
  for (const cfg of [
    { ca_certs: { trusted: [] } },
    { ca_certs: {} },
    { ca_certs: { trusted: null, remove_defaults: '' } },
  ]) {
    const ctx = dryContext(tempDir(t));
    await moduleNamed('ca_certs').run(ctx, cfg);
    assert.deepEqual(ctx.dry.effects, [{ kind: 'run', command: 'update-ca-certificates' }], JSON.stringify(cfg));
  }
  const one = dryContext(tempDir(t));
  await moduleNamed('ca_certs').run(one, {
    ca_certs: { trusted: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----' },
  });
  assert.deepEqual(
    one.dry.effects.map((e) => (e.kind === 'write-file' ? e.path : e.kind)),
    ['/usr/local/share/ca-certificates/cloud-init-ca-cert-1.crt', 'run'],
  );
  // timezone: null is get_cfg_option_str's 'None', a zone that does not exist: the module fails as cloud-init's does.
  await assert.rejects(moduleNamed('timezone').run(moduleContext(tempDir(t)), { timezone: null }), {
    name: 'ModuleError',
    message: 'timezone: Invalid timezone None, no file found at /usr/share/zoneinfo/None',
  });
  // keys_to_console: is_false's words turn it off; an ssh mapping without the key leaves it on.
  const off = dryContext(tempDir(t));
  await moduleNamed('keys_to_console').run(off, { ssh: { emit_keys_to_console: 'no' } });
  assert.ok(
    off.lines.some((l) => l.includes('Skipping module named keys_to_console, logging of SSH host keys disabled')),
  );
  const on = dryContext(tempDir(t));
  await moduleNamed('keys_to_console').run(on, { ssh: {}, ssh_key_console_blacklist: 'ssh-dss' });
  assert.equal(
    on.lines.some((l) => l.includes('logging of SSH host keys disabled')),
    false,
  );
  // spacewalk: a Python-false server skips the module.
  const sw = dryContext(tempDir(t), { distro: { name: 'rhel', family: 'redhat', version: '9' } });
  await moduleNamed('spacewalk').run(sw, { spacewalk: { server: 0 } });
  assert.deepEqual(sw.dry.effects, []);
  assert.ok(sw.lines.some((l) => l.includes("'spacewalk/server' key was not found")));
  // disable_ec2_metadata: a quoted 'yes' (get_cfg_option_bool) plans the route; fan: a fan without config skips.
  const ec2 = dryContext(tempDir(t));
  await moduleNamed('disable_ec2_metadata').run(ec2, { disable_ec2_metadata: 'yes' });
  assert.equal(
    ec2.lines.some((l) => l.includes('disabling the ec2 route not enabled')),
    false,
  );
  const fan = dryContext(tempDir(t));
  await moduleNamed('fan').run(fan, { fan: { config_path: '/etc/network/fan' } });
  assert.deepEqual(fan.dry.effects, []);
  // keyboard: set_keymap's f-string writes a number as its digits; final_message: null is get_cfg_option_str's 'None'.
  const kb = dryContext(tempDir(t));
  await moduleNamed('keyboard').run(kb, { keyboard: { layout: 'de', model: 105 } });
  assert.match(Buffer.from(await kb.dry.readFile('/etc/default/keyboard')).toString(), /^XKBMODEL="105"$/m);
  const fm = dryContext(tempDir(t));
  await moduleNamed('final_message').run(fm, { final_message: null });
  assert.equal(fm.outputText(), 'None\n');
});

test("a WarningReader logs upstream's warning and leaves the key as if absent when it cannot read a value", async (t) => {
  const warnings: string[] = [];
  const upTo3 = new WarningReader(
    (v) => (typeof v === 'number' && v <= 3 ? v : undefined),
    (v) => `Cannot use ${String(v)}`,
  );
  assert.equal(
    readConfigValue(upTo3, 2, (m) => warnings.push(m)),
    2,
  );
  assert.equal(
    readConfigValue(upTo3, 9, (m) => warnings.push(m)),
    undefined,
  );
  assert.deepEqual(
    readConfigValue({ depth: upTo3 }, { depth: 'x' }, (m) => warnings.push(m)),
    {},
  );
  assert.deepEqual(warnings, ['Cannot use 9', 'Cannot use x']);
  const orOff = new WarningReader(upTo3.read, upTo3.warning, 'off');
  assert.equal(
    readConfigValue(orOff, 9, (m) => warnings.push(m)),
    'off',
  );
  assert.equal(warnings.at(-1), 'Cannot use 9');
  const seen: unknown[] = [];
  const probe = configModule({
    ...PROBE_MODULE,
    configKeys: { apt_pipelining: upTo3 },
    async run(_ctx, cfg) {
      seen.push(cfg);
    },
  });
  const ctx = moduleContext(tempDir(t));
  await probe.run(ctx, { apt_pipelining: 5 });
  assert.deepEqual(seen, [{}]);
  assert.ok(
    ctx.lines.some((l) => l.includes('WARNING') && l.includes('Cannot use 5')),
    ctx.lines.join('\n'),
  );
});

test('ubuntu_drivers reads nvidia/license-accepted by translate_bool and says False as upstream does; apk_configure skips a Python-false version', async (t) => {
  const ctx = dryContext(tempDir(t), { distro: { name: 'ubuntu', family: 'debian', version: '24.04' } });
  await moduleNamed('ubuntu_drivers').run(ctx, { drivers: { nvidia: { 'license-accepted': 'nah', flavour: 'open' } } });
  assert.ok(
    ctx.lines.some((l) => l.includes('Not installing NVIDIA drivers. nvidia/license-accepted=False')),
    ctx.lines.join('\n'),
  );
  assert.deepEqual(ctx.dry.effects, []);
  const apk = dryContext(tempDir(t), { distro: { name: 'alpine', family: 'alpine', version: '3.19' } });
  await moduleNamed('apk_configure').run(apk, { apk_repos: { alpine_repo: { version: 0 } } });
  assert.ok(
    apk.lines.some((l) => l.includes("'version' not specified in alpine_repo")),
    apk.lines.join('\n'),
  );
  assert.deepEqual(apk.dry.effects, []);
});
