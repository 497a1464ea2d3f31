// cloudbase-init's metadata services as registered objects: each names a cloud kiln has, by a class path
// docs/windows.md lists, found by its full or short name.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { findMetadataService, metadataRouteUrl } from '../../src/plugins/metadata-services';
import { CLOUDBASE_SERVICES_PACKAGE } from '../../src/sources/cloudbase-metadata-service';
import { CLOUDBASE_SERVICES, DATASOURCES, WINDOWS_ONLY_SOURCES } from '../../src/sources/registry';
import { REPO } from '../helpers/repo';

test('every registered service belongs to a datasource kiln has, once per class path, and docs/windows.md lists it', () => {
  const names = new Set([...DATASOURCES, ...WINDOWS_ONLY_SOURCES].map((s) => s.name));
  const doc = readFileSync(join(REPO, 'docs', 'windows.md'), 'utf8');
  const paths = CLOUDBASE_SERVICES.map((s) => s.classPath);
  assert.equal(new Set(paths).size, paths.length, 'class paths are unique');
  assert.equal(
    new Set(paths.map((p) => p.split('.').pop())).size,
    paths.length,
    'short names are unique (metadata_services may give only those)',
  );
  for (const s of CLOUDBASE_SERVICES) {
    assert.ok(names.has(s.datasource), `${s.classPath}: no datasource ${s.datasource}`);
    assert.ok(s.classPath.startsWith(CLOUDBASE_SERVICES_PACKAGE), s.classPath);
    assert.ok(
      doc.includes(`| \`${s.classPath.slice(CLOUDBASE_SERVICES_PACKAGE.length)}\` |`),
      `docs/windows.md has no row for ${s.classPath}`,
    );
  }
  assert.equal(CLOUDBASE_SERVICES.length, 13);
});

test('a metadata_services entry is found by its class path or its last component; anything else is unknown', () => {
  assert.equal(findMetadataService('cloudbaseinit.metadata.services.ovfservice.OvfService')?.datasource, 'OVF');
  assert.equal(findMetadataService('ConfigDriveService')?.datasource, 'ConfigDrive');
  assert.equal(findMetadataService('some.other.module.VMwareGuestInfoService')?.datasource, 'VMware');
  assert.equal(findMetadataService('cloudbaseinit.metadata.services.nope.NopeService'), undefined);
});

test('the route before load(): only the HTTP services with a route section, as its add_metadata_private_ip_route says', () => {
  const conf = loadCloudbaseConf([
    {
      path: 'c.conf',
      text: '[openstack]\nmetadata_base_url=http://169.254.169.254/\n[cloudstack]\nmetadata_base_url=http://10.1.1.1/\n',
    },
  ]);
  const route = (short: string) => metadataRouteUrl(findMetadataService(short) ?? assert.fail(short), conf);
  assert.equal(route('HttpService'), 'http://169.254.169.254/');
  assert.equal(route('CloudStack'), undefined, '[cloudstack] add_metadata_private_ip_route defaults to false');
  assert.equal(route('OvfService'), undefined);
  assert.equal(route('EC2Service'), 'http://169.254.169.254/', "[ec2]'s default metadata_base_url");
});
