import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { findModule, MODULES } from '../../src/modules/registry';
import { REPO } from '../helpers/repo';

test('module names are unique and found with cloud-init spellings', () => {
  const names = MODULES.map((m) => m.name);
  assert.equal(new Set(names).size, names.length);
  assert.equal(findModule('cc_write_files')?.name, 'write_files');
  assert.equal(findModule('ca-certs')?.name, 'ca_certs');
  assert.equal(findModule('no_such'), undefined);
});

test("stages and frequencies are cloud-init 22.4's", () => {
  const expect: Record<string, [string, string]> = {
    seed_random: ['init', 'once-per-instance'],
    bootcmd: ['init', 'always'],
    write_files: ['init', 'once-per-instance'],
    growpart: ['init', 'always'],
    resizefs: ['init', 'always'],
    disk_setup: ['init', 'once-per-instance'],
    mounts: ['init', 'once-per-instance'],
    set_hostname: ['init', 'once-per-instance'],
    update_hostname: ['init', 'always'],
    update_etc_hosts: ['init', 'always'],
    ca_certs: ['init', 'once-per-instance'],
    rsyslog: ['init', 'once-per-instance'],
    users_groups: ['init', 'once-per-instance'],
    ssh: ['init', 'once-per-instance'],
    set_passwords: ['init', 'once-per-instance'],
    resolv_conf: ['init', 'once-per-instance'],
  };
  for (const m of MODULES) {
    const e = expect[m.name];
    if (!e) continue;
    assert.deepEqual([m.stage, m.frequency], e, m.name);
  }
});

test('every module of every stage in the embedded cloud.cfg is registered, in its stage', () => {
  const cfg = readFileSync(join(REPO, 'src/config/defaults/cloud.cfg'), 'utf8');
  for (const [key, stage] of [
    ['cloud_init_modules', 'init'],
    ['cloud_config_modules', 'config'],
    ['cloud_final_modules', 'final'],
  ] as const) {
    const block = new RegExp(`${key}:\\n((?:\\s+- .+\\n)+)`).exec(cfg)?.[1] ?? '';
    const listed = block
      .split('\n')
      .map((l) => l.replace(/^\s+- /, '').trim())
      .filter(Boolean);
    assert.ok(listed.length > 8, key);
    for (const name of listed) {
      const m = findModule(name);
      assert.ok(m, `${name} is listed in ${key} but not registered`);
      assert.equal(m.stage, stage, `${name} is listed in ${key} but registered for the ${m.stage} stage`);
    }
  }
});
