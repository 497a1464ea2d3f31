// `--version` as cloud-init prints it (the path it was started by, then the cloud-init release kiln reproduces) and
// kiln's own.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { invokedPath } from '../../src/cli/invoked-path';
import { shortVersion } from '../../src/cli/version';
import { tempDir } from '../helpers/temp';
import { KILN_CLOUD_INIT_VERSION } from '../../src/build-info';

test('a bare name is the first executable of that name in PATH, as the kernel hands a script its path; a path stays as given', (t) => {
  const dir = tempDir(t);
  for (const [folder, mode] of [
    ['local', 0o755],
    ['usr', 0o755],
    ['plain', 0o644],
  ] as const) {
    mkdirSync(join(dir, folder));
    writeFileSync(join(dir, folder, 'cloud-init'), '#!/bin/sh\n', { mode });
  }
  mkdirSync(join(dir, 'empty'));
  const [local, usr, plain, empty] = ['local', 'usr', 'plain', 'empty'].map((f) => join(dir, f));
  assert.equal(invokedPath('cloud-init', `${empty}:${local}:${usr}`), `${local}/cloud-init`);
  assert.equal(invokedPath('cloud-init', `${empty}:${usr}`), `${usr}/cloud-init`);
  // A file that is not executable is no match, as for the shell.
  assert.equal(invokedPath('cloud-init', `${plain}:${usr}`), `${usr}/cloud-init`);
  // Relative PATH entries are not searched (a shell would, from the cwd; cloud-init's units never do).
  assert.equal(invokedPath('cloud-init', '.:bin'), 'cloud-init');
  assert.equal(invokedPath('cloud-init', undefined), 'cloud-init');
  assert.equal(invokedPath('cloud-init', empty), 'cloud-init');
  assert.equal(invokedPath('./cloud-init', usr), './cloud-init');
  assert.equal(invokedPath('/opt/kiln/cloud-init', usr), '/opt/kiln/cloud-init');
});

test('--version: the cloud-init face leads with the cloud-init release (what version gates read), kiln names both', () => {
  assert.match(KILN_CLOUD_INIT_VERSION, /^\d+\.\d+(\.\d+)?$/);
  assert.equal(
    shortVersion('cloud-init', '1.2.3', '/usr/bin/cloud-init', '/usr/bin'),
    `/usr/bin/cloud-init ${KILN_CLOUD_INIT_VERSION} (kiln 1.2.3)`,
  );
  // What `cloud-init --version | awk '{print $2}'` style gates read.
  assert.equal(shortVersion('cloud-init', '1.2.3', '/x/cloud-init', undefined).split(' ')[1], KILN_CLOUD_INIT_VERSION);
  assert.equal(shortVersion('kiln', '1.2.3', 'kiln', '/usr/bin'), `kiln 1.2.3 (cloud-init ${KILN_CLOUD_INIT_VERSION})`);
  assert.equal(shortVersion('cloudbase-init', '1.2.3', 'cloudbase-init.exe', undefined), 'cloudbase-init 1.2.3 (kiln)');
});
