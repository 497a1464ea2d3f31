// The validators generated at build time (Ajv's standalone code, the binary's default) and those Ajv compiles at run
// time (KILN_SCHEMA_COMPILE=runtime) judge every document alike: the same errors and deprecations, in the same words,
// at the same paths and lines.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileValidators } from '../../src/config/schema/compile-validators';
import { prebuiltValidators } from '../../src/config/schema/prebuilt-validators';
import { validateCloudConfig } from '../../src/config/validate-cloud-config';
import { CLOUD_CONFIG_SCHEMA_ROWS } from './cloud-config-schema-rows';

const MORE = [
  'hostnam: web\npakages: [a]',
  'users: [default, {name: bob, lock-passwd: true, sudo: false}]',
  'apt_pipelining: none\nsystem_info: {distro: debian}',
  'write_files: [{path: /a, content: !!binary aGVsbG8=}]',
  'runcmd: [[ls, -l], echo hi, 3]',
  'ntp: {enabled: yes, servers: [a, a], pools: {}}',
];

test('build-time and run-time validators give the same problems for every row', () => {
  const compiled = compileValidators('cloudConfig');
  const prebuilt = prebuiltValidators('cloudConfig');
  assert.notEqual(compiled.validate, prebuilt.validate);
  let deprecations = 0;
  for (const yaml of [...CLOUD_CONFIG_SCHEMA_ROWS.map((r) => r[1]), ...MORE]) {
    const doc = `#cloud-config\n${yaml}\n`;
    const atBuild = validateCloudConfig(doc, { validators: prebuilt });
    assert.deepEqual(validateCloudConfig(doc, { validators: compiled }), atBuild, yaml);
    assert.deepEqual(validateCloudConfig(doc), atBuild, yaml);
    deprecations += atBuild.problems.filter((p) => p.kind === 'deprecation').length;
  }
  assert.ok(deprecations >= 3, 'the documents reach lifecycle nodes');
});
