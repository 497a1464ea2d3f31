// Modules that read their config typed by the schema (src/modules/support/config-module.ts): the keys they name are
// checked once against the cloud-config schema before they run, and only those keys reach them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLOUD_CONFIG_SCHEMA } from '../../src/config/schema/cloud-config';
import { ModuleError } from '../../src/modules/module';
import { findModule } from '../../src/modules/registry';
import { configModule } from '../../src/modules/support/config-module';
import { REPO } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

/** The modules converted to typed config: none of them may go back to reading the whole config untyped. */
const TYPED_MODULES = ['timezone', 'locale', 'resolv_conf', 'ca_certs', 'keys_to_console', 'spacewalk', 'salt_minion'];

test('each typed module names schema keys and its file reads no untyped config', () => {
  const known = new Set(Object.keys(CLOUD_CONFIG_SCHEMA.properties));
  for (const name of TYPED_MODULES) {
    const mod = findModule(name);
    assert.ok(mod, name);
    assert.ok(mod.configKeys && mod.configKeys.length > 0, `${name} is not made by configModule (no configKeys)`);
    for (const key of mod.configKeys) assert.ok(known.has(key), `${name}: ${key} is not a cloud-config key of the schema`);
    const source = readFileSync(join(REPO, 'src/modules', `${name.replace(/_/g, '-')}.ts`), 'utf8');
    for (const untyped of [/Record<string, unknown>/, /\bCloudConfig\b/, /\bcfg(String|List|Map|Bool|Record)\(/]) {
      assert.doesNotMatch(source, untyped, `${name} reads its config untyped again`);
    }
  }
});

test('a typed module gets only its keys, as given, and nothing when none is set', async (t) => {
  const seen: unknown[] = [];
  const probe = configModule({
    name: 'probe', stage: 'config', frequency: 'always', distros: 'all', activateBy: [], configKeys: ['timezone', 'ntp'],
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

test("a typed module whose keys break the schema fails with a ModuleError naming the key and the schema's message", async (t) => {
  const ctx = moduleContext(tempDir(t));
  await assert.rejects(findModule('timezone')!.run(ctx, { timezone: 5 }), (err: unknown) => {
    assert.ok(err instanceof ModuleError);
    assert.equal(err.message, "timezone: Invalid cloud-config: timezone: 5 is not of type 'string'");
    return true;
  });
  await assert.rejects(findModule('locale')!.run(ctx, { locale: ['de_DE.UTF-8'], locale_configfile: 7 }), {
    name: 'ModuleError',
    message: "locale: Invalid cloud-config: locale: ['de_DE.UTF-8'] is not of type 'boolean'; locale: ['de_DE.UTF-8'] is not of type 'string'; locale_configfile: 7 is not of type 'string'",
  });
});
