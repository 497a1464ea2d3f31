import assert from 'node:assert/strict';
import { test } from 'node:test';
import { annotate, validateCloudConfig } from '../../src/config/validate-cloud-config';

test('a valid document has no problems', () => {
  const r = validateCloudConfig('#cloud-config\nruncmd:\n  - [ls, -l]\n  - echo hi\nusers: [default, {name: bob, shell: /bin/sh}]\nwrite_files: [{path: /x, content: y}]\n');
  assert.equal(r.fatal, undefined);
  assert.deepEqual(r.problems, []);
});

test('errors name the key path, line and column', () => {
  const text = '#cloud-config\nhostname: web\nruncmd: 42\nusers:\n  - name: bob\n    shelll: /bin/sh\npower_state: {mode: explode}\n';
  const r = validateCloudConfig(text);
  const by = Object.fromEntries(r.problems.map((p) => [p.path, p]));
  assert.equal(by.runcmd?.line, 3);
  assert.equal(by.runcmd?.column, 1);
  assert.match(by.runcmd?.message ?? '', /42 is not of type 'array'/);
  assert.equal(by['users.0.shelll']?.line, 6);
  assert.equal(by['users.0.shelll']?.column, 5);
  assert.match(by['users.0.shelll']?.message ?? '', /'shelll' was unexpected/);
  assert.match(by['power_state.mode']?.message ?? '', /'explode' is not one of/);
  const a = annotate(text, r.problems);
  assert.match(a, /runcmd: 42\t\t# E1/);
  assert.match(a, /# Errors: -------------\n# E1: runcmd:/);
});

test('header and YAML errors stop validation with a position', () => {
  assert.match(validateCloudConfig('runcmd: []\n').fatal ?? '', /#cloud-config/);
  assert.match(validateCloudConfig('#cloud-config\nruncmd: [ls\n').fatal ?? '', /not valid YAML\. in line \d+ column \d+/);
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
  assert.match(by['fan.confg_path']?.message ?? '', /'confg_path' was unexpected/);
  assert.match(by['landscape.clinet']?.message ?? '', /'clinet' was unexpected/);
  assert.match(by['spacewalk.activationkey']?.message ?? '', /'activationkey' was unexpected/);
  assert.equal(by['autoinstall.version']?.line, 6);
  assert.match(by['autoinstall.version']?.message ?? '', /'1' is not of type 'integer'/);
  assert.deepEqual(validateCloudConfig('#cloud-config\nbyobu_by_default: user\nfan: {config: x}\nautoinstall: {version: 1, storage: {}}\n').problems, []);
});
