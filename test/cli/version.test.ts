// `--version` as cloud-init prints it (the path it was started by, then the cloud-init release kiln reproduces) and kiln's own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invokedPath } from '../../src/cli/invoked-path';
import { shortVersion } from '../../src/cli/version';
import { KILN_CLOUD_INIT_VERSION } from '../../src/build-info';

test('a bare name is the first executable of that name in PATH, as the kernel hands a script its path; a path stays as given', () => {
  const present = new Set(['/usr/local/bin/cloud-init', '/usr/bin/cloud-init']);
  const has = (p: string) => present.has(p);
  assert.equal(invokedPath('cloud-init', '/usr/local/sbin:/usr/local/bin:/usr/bin', has), '/usr/local/bin/cloud-init');
  assert.equal(invokedPath('cloud-init', '/usr/sbin:/usr/bin', has), '/usr/bin/cloud-init');
  // Relative PATH entries are not searched (a shell would, from the cwd; cloud-init's units never do).
  assert.equal(invokedPath('cloud-init', '.:bin', has), 'cloud-init');
  assert.equal(invokedPath('cloud-init', undefined, has), 'cloud-init');
  assert.equal(invokedPath('./cloud-init', '/usr/bin', has), './cloud-init');
  assert.equal(invokedPath('/opt/kiln/cloud-init', '/usr/bin', has), '/opt/kiln/cloud-init');
});

test('--version: the cloud-init face leads with the cloud-init release (what version gates read), kiln names both', () => {
  assert.match(KILN_CLOUD_INIT_VERSION, /^\d+\.\d+(\.\d+)?$/);
  assert.equal(shortVersion('cloud-init', '1.2.3', '/usr/bin/cloud-init', '/usr/bin'), `/usr/bin/cloud-init ${KILN_CLOUD_INIT_VERSION} (kiln 1.2.3)`);
  // What `cloud-init --version | awk '{print $2}'` style gates read.
  assert.equal(shortVersion('cloud-init', '1.2.3', '/x/cloud-init', undefined).split(' ')[1], KILN_CLOUD_INIT_VERSION);
  assert.equal(shortVersion('kiln', '1.2.3', 'kiln', '/usr/bin'), `kiln 1.2.3 (cloud-init ${KILN_CLOUD_INIT_VERSION})`);
  assert.equal(shortVersion('cloudbase-init', '1.2.3', 'cloudbase-init.exe', undefined), 'cloudbase-init 1.2.3 (kiln)');
});
