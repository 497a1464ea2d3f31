// Each module's valid and invalid cloud-config, judged as cloud-init 25.1.4's schema judges them: the verdict
// and the paths of the errors (or, for a deprecated form, of the deprecations). The expectations are what
// 25.1.4's validate_cloudconfig_schema (strict) returned for each row; every rule kind is among them: types,
// enums, required, additionalProperties, patternProperties, minItems/maxItems, minProperties, uniqueItems,
// minimum, pattern, anyOf, oneOf, unknown top-level keys, deprecated and changed forms.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCloudConfig } from '../../src/config/validate-cloud-config';
import { CLOUD_CONFIG_SCHEMA_ROWS as ROWS, type Verdict } from './cloud-config-schema-rows';

test('every module: valid, invalid and deprecated cloud-config judged as cloud-init 25.1 judges it, at the same paths', () => {
  const wrong: string[] = [];
  for (const [module, yaml, verdict, paths] of ROWS) {
    const r = validateCloudConfig(`#cloud-config\n${yaml}\n`);
    assert.equal(r.fatal, undefined, yaml);
    const errors = [...new Set(r.problems.filter((p) => p.kind === 'error').map((p) => p.path))].sort();
    const deprecations = [...new Set(r.problems.filter((p) => p.kind === 'deprecation').map((p) => p.path))].sort();
    const got: Verdict = errors.length ? 'invalid' : deprecations.length ? 'deprecated' : 'valid';
    const gotPaths = errors.length ? errors : deprecations;
    if (got !== verdict || JSON.stringify(gotPaths) !== JSON.stringify(paths))
      wrong.push(
        `${module}: ${JSON.stringify(yaml)}: ${got} ${JSON.stringify(gotPaths)}, 25.1: ${verdict} ${JSON.stringify(paths)}`,
      );
  }
  assert.deepEqual(wrong, []);
});

test("the issue's examples, in 25.1's words", () => {
  const problems = (yaml: string) =>
    validateCloudConfig(`#cloud-config\n${yaml}\n`).problems.map((p) => `${p.kind} ${p.path}: ${p.message}`);
  assert.deepEqual(problems('apt: {}'), ['error apt: {} does not have enough properties']);
  assert.deepEqual(problems('apt: {preserve_sources_list: 1}'), [
    "error apt.preserve_sources_list: 1 is not of type 'boolean'",
  ]);
  assert.deepEqual(problems('manage_resolv_conf: asdf'), ["error manage_resolv_conf: 'asdf' is not of type 'boolean'"]);
  assert.deepEqual(problems('runcmd: []'), ['error runcmd: [] is too short']);
  assert.deepEqual(problems('ntp: {invalidkey: 1}'), [
    "error ntp: Additional properties are not allowed ('invalidkey' was unexpected)",
  ]);
  assert.deepEqual(problems('random_seed: {encoding: bad}'), [
    "error random_seed.encoding: 'bad' is not one of ['raw', 'base64', 'b64', 'gzip', 'gz']",
  ]);
  assert.deepEqual(problems('hostnam: web'), [
    "error hostnam: Additional properties are not allowed ('hostnam' was unexpected)",
  ]);
  // Two unknown top-level keys are one error at no path, as 25.1 reports them.
  assert.deepEqual(problems('hostnam: web\npakages: [a]'), [
    "error : Additional properties are not allowed ('hostnam', 'pakages' were unexpected)",
  ]);
  assert.deepEqual(problems('write_files: [{path: /a, content: !!binary aGVsbG8=}]'), []);
  assert.deepEqual(problems('vendor_data: {prefix: [timeout, 30]}'), []);
  assert.deepEqual(problems('users: [{name: a, lock-passwd: true}]'), [
    'deprecation users.0.lock-passwd:  Deprecated in version 22.3. Use **lock_passwd** instead.',
  ]);
  assert.deepEqual(problems('manage_etc_hosts: template'), [
    'deprecation manage_etc_hosts:  Changed in version 22.3. Use of **template** is deprecated, use ``true`` instead.',
  ]);
  // anyOf: jsonschema's best match and the anyOf's own error; oneOf: the deepest errors of its branches.
  assert.deepEqual(problems('chpasswd: {users: [{}]}'), [
    "error chpasswd.users.0: 'name' is a required property",
    'error chpasswd.users.0: {} is not valid under any of the given schemas',
  ]);
  assert.deepEqual(problems('user: {name: a, snapuser: b}'), [
    "error user: {'name': 'a', 'snapuser': 'b'} is not of type 'string'",
    "error user: {'name': 'a', 'snapuser': 'b'} is valid under each of {'required': ['snapuser']}, {'required': ['name']}",
  ]);
  // A !!binary value is a string to the schema and shown as Python shows bytes.
  assert.deepEqual(problems('hostname: !!binary aGk='), []);
  assert.deepEqual(problems('runcmd: !!binary aGk='), ["error runcmd: b'hi' is not of type 'array'"]);
});
