// GCE parity: cloud-init 25.1's own read_md and _parse_public_keys (Python, in the cached Debian 13 rootfs) and kiln's
// GCE source read the same mock server.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { gceSource } from '../../src/sources/gce';
import { Logger } from '../../src/util/log';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from '../sources/fake-finder';
import { PARITY_SUITE } from './run-case';

const run = promisify(execFile);

/**
 * cloud-init's read_md without its platform check (no DMI in a chroot) and with is_resolvable_url answering
 * yes (it would look up names on the internet first); the rest is 25.1's code unchanged (read_md and
 * _parse_public_keys keep 22.4's signatures).
 */
const READ_MD = `
import base64, json, sys
from cloudinit import util
from cloudinit.sources import DataSourceGCE as g
util.is_resolvable_url = lambda url: True
class Params:
    num_retries = 0
    sec_between_retries = 0
ret = g.read_md(address=sys.argv[1], url_params=Params(), platform_check=False)
md = ret["meta-data"]
ud = ret["user-data"]
print(json.dumps({"success": ret["success"], "reason": ret["reason"], "md": md,
  "ud": None if ud is None else base64.b64encode(ud).decode(),
  "keys": None if md is None else g._parse_public_keys(md["public-keys-data"], "debian")}))
`;

const CASES = [
  'happy-path',
  'expired-keys',
  'project-keys-blocked',
  'legacy-instance-sshkeys',
  'base64-user-data',
  'unknown-user-data-encoding',
];

for (const name of CASES) {
  test(`GCE parity with cloud-init 25.1's read_md: ${name}`, async (t) => {
    if (!need(t, isRoot(), 'chroot into the Debian rootfs needs root')) return;
    const rootfs = ensureDebianRootfs(PARITY_SUITE);
    const server = await mockMetadataServer(t, { kind: 'gce', dir: join(FIXTURES, 'sources/gce', name, 'tree') });
    const v1 = `${server.url}/computeMetadata/v1/`;
    // The host's network namespace, but only 127.0.0.1 is asked (no proxy variables, no name lookups).
    const { stdout } = await run('chroot', [rootfs, '/usr/bin/python3', '-B', '-c', READ_MD, v1], {
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
      timeout: 60_000,
    });
    const ci = JSON.parse(stdout) as {
      success: boolean;
      reason: string | null;
      md: Record<string, unknown>;
      ud: string | null;
      keys: string[];
    };
    assert.equal(ci.success, true, `cloud-init: ${ci.reason}`);
    assert.deepEqual(Object.keys(ci.md).sort(), [
      'availability-zone',
      'instance-data',
      'instance-id',
      'local-hostname',
      'project-data',
      'public-keys-data',
    ]);
    if (name === 'happy-path')
      assert.equal(ci.keys.length, 4, 'the fixture gives the default user and cloudinit four keys');
    const log = new Logger().for('test');
    const platform = new LinuxPlatform({ root: tempDir(t), log });
    const data = await gceSource.crawl({
      platform,
      log,
      kernelCmdline: '',
      dmi: { product_name: 'Google Compute Engine' },
      config: { users: ['default'], system_info: { default_user: { name: 'debian' } } },
      finder: new FakeFinder(platform),
      settings: { metadata_url: v1, timeout: 5, retries: 0 },
    });
    assert.deepEqual(data.metadata, ci.md, 'ds.meta_data');
    assert.equal(
      data.userData === undefined ? null : Buffer.from(data.userData).toString('base64'),
      ci.ud,
      'user data',
    );
    assert.deepEqual(data.publicKeys, ci.keys, 'keys of the default user');
    // DataSourceGCE's accessors: short host name, zone, region.
    assert.equal(data.localHostname, String(ci.md['local-hostname']).split('.')[0]);
    assert.equal(data.availabilityZone, ci.md['availability-zone']);
    assert.equal(data.region, String(ci.md['availability-zone']).split('-').slice(0, -1).join('-'));
  });
}
