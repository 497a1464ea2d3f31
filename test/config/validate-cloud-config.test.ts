import assert from 'node:assert/strict';
import { test } from 'node:test';
import { annotate, validateCloudConfig } from '../../src/config/validate-cloud-config';

test('a valid document has no problems', () => {
  const r = validateCloudConfig(
    '#cloud-config\nruncmd:\n  - [ls, -l]\n  - echo hi\nusers: [default, {name: bob, shell: /bin/sh}]\nwrite_files: [{path: /x, content: y}]\n',
  );
  assert.equal(r.fatal, undefined);
  assert.deepEqual(r.problems, []);
});

test('errors name the key path, line and column', () => {
  const text =
    '#cloud-config\nhostname: web\nruncmd: 42\nusers:\n  - name: bob\n    shelll: /bin/sh\npower_state: {mode: explode}\n';
  const r = validateCloudConfig(text);
  const by = Object.fromEntries(r.problems.map((p) => [p.path, p]));
  assert.equal(by.runcmd?.line, 3);
  assert.equal(by.runcmd?.column, 1);
  assert.match(by.runcmd?.message ?? '', /42 is not of type 'array'/);
  // jsonschema names the mapping that has an unknown key (cloud-init 25.1 prints that path), at the item's line.
  const unexpected = r.problems.find((p) => p.path === 'users.0' && /'shelll' was unexpected/.test(p.message));
  assert.equal(unexpected?.line, 5);
  assert.equal(unexpected?.column, 5);
  assert.match(by['power_state.mode']?.message ?? '', /'explode' is not one of/);
  const a = annotate(text, r.problems);
  // Marks numbered down the document; the footer gives the messages (25.1's annotate shape).
  assert.match(a, /runcmd: 42\t\t# E1\n/);
  assert.match(a, /power_state: \{mode: explode\}\t\t# E\d+\n/);
  assert.match(a, /# Errors: -------------\n# E1: 42 is not of type 'array'\n# E2: Additional properties/);
});

test('header and YAML errors stop validation with a position', () => {
  assert.match(validateCloudConfig('runcmd: []\n').fatal ?? '', /#cloud-config/);
  assert.match(
    validateCloudConfig('#cloud-config\nruncmd: [ls\n').fatal ?? '',
    /not valid YAML\. in line \d+ column \d+/,
  );
  assert.match(validateCloudConfig('#cloud-config\n- a\n').fatal ?? '', /not a YAML dict/);
});

test('the byobu, fan, landscape, spacewalk and autoinstall keys are checked, each error naming its key', () => {
  const text = [
    '#cloud-config',
    'byobu_by_default: sometimes',
    'fan: {config: "x", confg_path: /etc/fan}',
    'landscape: {client: {url: u}, clinet: {}}',
    'spacewalk: {server: sw, activationkey: k}',
    'autoinstall: {version: "1"}',
    '',
  ].join('\n');
  const by = Object.fromEntries(validateCloudConfig(text).problems.map((p) => [p.path, p]));
  assert.match(by.byobu_by_default?.message ?? '', /'sometimes' is not one of/);
  assert.match(by.fan?.message ?? '', /'confg_path' was unexpected/);
  assert.match(by.landscape?.message ?? '', /'clinet' was unexpected/);
  assert.match(by.spacewalk?.message ?? '', /'activationkey' was unexpected/);
  assert.equal(by['autoinstall.version']?.line, 6);
  assert.match(by['autoinstall.version']?.message ?? '', /'1' is not of type 'integer'/);
  assert.deepEqual(
    validateCloudConfig(
      '#cloud-config\nbyobu_by_default: user\nfan: {config: x}\nautoinstall: {version: 1, storage: {}}\n',
    ).problems,
    [],
  );
});

test("a key upstream's schema requires is an error at its mapping's key path and line, in jsonschema's words", () => {
  const text = [
    '#cloud-config',
    'ansible:',
    '  pull: {playbook_name: site.yml}',
    'updates:',
    '  network: {}',
    'phone_home: {post: all}',
    'power_state: {delay: 5}',
    'write_files:',
    '  - content: x',
    '  - {path: /y, source: {headers: {}}}',
    'users: [default, {shell: /bin/sh}]',
    'chpasswd: {users: [{name: bob}]}',
    'fan: {config_path: /etc/fan}',
    'keyboard: {model: pc105}',
    'landscape: {}',
    'lxd: {bridge: {name: br0}}',
    'wireguard: {readinessprobe: []}',
    'drivers: {nvidia: {version: "470"}}',
    'autoinstall: {storage: {}}',
    'ssh: {}',
    'rsyslog: {configs: [{filename: a.conf}]}',
    '',
  ].join('\n');
  const got = validateCloudConfig(text)
    .problems.filter((p) => p.kind === 'error')
    .map((p) => `${p.line} ${p.path}: ${p.message}`);
  assert.deepEqual(got.sort(), [
    "10 write_files.1.source: 'uri' is a required property",
    "11 users.1: 'name' is a required property",
    "11 users.1: 'snapuser' is a required property",
    "11 users.1: {'shell': '/bin/sh'} is not of type 'array'",
    "11 users.1: {'shell': '/bin/sh'} is not of type 'string'",
    "12 chpasswd.users.0: 'type' is a required property",
    "12 chpasswd.users.0: {'name': 'bob'} is not valid under any of the given schemas",
    "13 fan: 'config' is a required property",
    "14 keyboard: 'layout' is a required property",
    "15 landscape: 'client' is a required property",
    "16 lxd.bridge: 'mode' is a required property",
    "17 wireguard: 'interfaces' is a required property",
    "18 drivers.nvidia: 'license-accepted' is a required property",
    "19 autoinstall: 'version' is a required property",
    "20 ssh: 'emit_keys_to_console' is a required property",
    "21 rsyslog.configs.0: 'content' is a required property",
    "21 rsyslog.configs.0: {'filename': 'a.conf'} is not of type 'string'",
    "3 ansible.pull: 'url' is a required property",
    "5 updates.network: 'when' is a required property",
    "6 phone_home: 'url' is a required property",
    "7 power_state: 'mode' is a required property",
    "9 write_files.0: 'path' is a required property",
  ]);
});

test('required keys that are present, a snap user, a RANDOM password and a null wireguard pass', () => {
  const text = [
    '#cloud-config',
    'ansible: {pull: {url: "https://git.example/repo", playbook_name: site.yml}, galaxy: {actions: [[ansible-galaxy, install, x]]}}',
    'updates: {network: {when: [boot]}}',
    'users: [default, {name: bob}, {snapuser: joe@example.com}]',
    'chpasswd: {users: [{name: bob, type: RANDOM}, {name: ann, password: pw, type: text}]}',
    'wireguard: null',
    'rsyslog: {configs: ["*.* @@host", {content: "*.* @@other"}]}',
    '',
  ].join('\n');
  assert.deepEqual(validateCloudConfig(text).problems, []);
});

test('the schema command names a missing required key with its path and line', async () => {
  const { problems } = validateCloudConfig('#cloud-config\nhostname: h\nphone_home:\n  tries: 3\n');
  assert.deepEqual(
    problems.map((p) => ({ path: p.path, line: p.line, column: p.column, message: p.message })),
    [{ path: 'phone_home', line: 3, column: 1, message: "'url' is a required property" }],
  );
});
