// The configuration files shipped in images/windows parse, know every option and name only plugins kiln has.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { datasourceForService } from '../../src/plugins/metadata-services';
import { findPlugin } from '../../src/plugins/registry';
import { REPO } from '../helpers/repo';

for (const name of ['cloudbase-init.conf', 'cloudbase-init-unattend.conf']) {
  test(`images/windows/${name} is valid for kiln`, () => {
    const path = join(REPO, 'images', 'windows', name);
    const conf = loadCloudbaseConf([{ path, text: readFileSync(path, 'utf8') }]);
    assert.deepEqual(conf.unknown, []);
    for (const p of conf.list('plugins') ?? []) assert.ok(findPlugin(p), `plugin ${p} is implemented`);
    for (const s of conf.list('metadata_services') ?? []) assert.ok(datasourceForService(s), `service ${s} is known`);
  });
}

test('images/windows/Unattend.xml runs kiln with the unattend conf in the specialize pass', () => {
  const xml = readFileSync(join(REPO, 'images', 'windows', 'Unattend.xml'), 'utf8');
  assert.match(xml, /<settings pass="specialize">[\s\S]*kiln\.exe&quot;|<settings pass="specialize">[\s\S]*kiln\.exe" cloudbase-init --config-file "[^"]*cloudbase-init-unattend\.conf"/);
});
