// The configuration files shipped in images/windows parse, know every option and name only plugins kiln has.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { findMetadataService } from '../../src/plugins/metadata-services';
import { findPlugin } from '../../src/plugins/registry';
import { resolvePlugins } from '../../src/plugins/runner';
import { REPO } from '../helpers/repo';

for (const rel of [
  'images/windows/cloudbase-init.conf',
  'images/windows/cloudbase-init-unattend.conf',
  'src/config/defaults/cloudbase-init.conf',
]) {
  test(`${rel} is valid for kiln: known options, implemented plugins, no warnings`, () => {
    const path = join(REPO, ...rel.split('/'));
    const conf = loadCloudbaseConf([{ path, text: readFileSync(path, 'utf8') }]);
    assert.deepEqual(conf.unknown, []);
    for (const p of conf.list('plugins') ?? []) assert.ok(findPlugin(p), `plugin ${p} is implemented`);
    const errors: string[] = [];
    const warnings: string[] = [];
    assert.equal(resolvePlugins(conf, errors, warnings).length, conf.list('plugins')?.length ?? 0);
    assert.deepEqual({ errors, warnings }, { errors: [], warnings: [] });
    for (const s of conf.list('metadata_services') ?? []) assert.ok(findMetadataService(s), `service ${s} is known`);
  });
}

test('images/windows/Unattend.xml runs kiln with the unattend conf in the specialize pass', () => {
  const xml = readFileSync(join(REPO, 'images', 'windows', 'Unattend.xml'), 'utf8');
  assert.match(
    xml,
    /<settings pass="specialize">[\s\S]*kiln\.exe&quot;|<settings pass="specialize">[\s\S]*kiln\.exe" cloudbase-init --config-file "[^"]*cloudbase-init-unattend\.conf"/,
  );
});
