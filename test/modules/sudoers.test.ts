// The cloud-init sudoers file: created 0440 with a header, a user's rules appended once (25.1's write_sudo_rules).
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeSudoRules } from '../../src/modules/support/sudoers';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

test('sudo rules already in the file are not appended again (a new instance id), other rules are', async (t) => {
  const root = tempDir(t);
  const platform = new LinuxPlatform({ root, log: new Logger().for('p') });
  const now = new Date(0);
  await writeSudoRules(platform, 'debian', ['ALL=(ALL) NOPASSWD:ALL'], now);
  await writeSudoRules(platform, 'debian', ['ALL=(ALL) NOPASSWD:ALL'], now);
  await writeSudoRules(platform, 'ops', 'ALL=(ALL) ALL', now);
  const file = join(root, 'etc/sudoers.d/90-cloud-init-users');
  const text = readFileSync(file, 'utf8');
  assert.equal(text.split('# User rules for debian').length - 1, 1, text);
  assert.match(text, /\n# User rules for ops\nops ALL=\(ALL\) ALL\n$/);
  assert.equal(statSync(file).mode & 0o777, 0o440);
});
