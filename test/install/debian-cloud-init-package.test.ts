import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  debianCloudInitPresence,
  dpkgDiversions,
  dpkgListsInstalled,
} from '../../src/install/debian-cloud-init-package';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

const STATUS = `Package: cloud-guest-utils
Status: install ok installed
Version: 0.33-1

Package: cloud-init
Status: install ok installed
Priority: optional
Version: 22.4.2-1+deb12u1
`;

test('dpkgListsInstalled: only a stanza of that package whose state is installed', () => {
  assert.equal(dpkgListsInstalled(STATUS, 'cloud-init'), true);
  assert.equal(dpkgListsInstalled(STATUS, 'cloud'), false);
  assert.equal(
    dpkgListsInstalled(
      STATUS.replace('install ok installed\nPriority', 'deinstall ok config-files\nPriority'),
      'cloud-init',
    ),
    false,
  );
  assert.equal(dpkgListsInstalled('Package: cloud-init-extra\nStatus: install ok installed\n', 'cloud-init'), false);
});

test('debianCloudInitPresence: dpkg status, or a Python /usr/bin/cloud-init, or nothing', async (t) => {
  const root = tempDir(t);
  const platform = new LinuxPlatform({ root, log: new Logger().for('t') });
  assert.equal(await debianCloudInitPresence(platform), undefined);
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  writeFileSync(join(root, 'usr/bin/cloud-init'), '#!/usr/bin/python3\nimport sys\n');
  assert.match((await debianCloudInitPresence(platform)) ?? '', /Python script/);
  mkdirSync(join(root, 'var/lib/dpkg'), { recursive: true });
  writeFileSync(join(root, 'var/lib/dpkg/status'), STATUS);
  assert.match((await debianCloudInitPresence(platform)) ?? '', /dpkg lists the cloud-init package as installed/);
});

test('dpkgDiversions reads the groups of three lines', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/dpkg'), { recursive: true });
  writeFileSync(
    join(root, 'var/lib/dpkg/diversions'),
    '/bin/sh\n/bin/sh.distrib\ndash\n/usr/bin/cloud-init\n/usr/bin/cloud-init.distrib\n:\n',
  );
  assert.deepEqual(await dpkgDiversions(new LinuxPlatform({ root, log: new Logger().for('t') })), [
    { from: '/bin/sh', to: '/bin/sh.distrib', package: 'dash' },
    { from: '/usr/bin/cloud-init', to: '/usr/bin/cloud-init.distrib', package: ':' },
  ]);
});
