// byobu: the one /bin/sh script cloud-init runs for each byobu_by_default value, planned on a dry run; byobu
// installed first where it is missing (25.1).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { byobuModule } from '../../src/modules/byobu';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';

const USERS = { users: ['default'], system_info: { default_user: { name: 'debian' } } };
const SYSTEM_ON =
  'echo "byobu byobu/launch-by-default boolean true" | debconf-set-selections && dpkg-reconfigure byobu --frontend=noninteractive || X=$(($X+1)); ';
const SYSTEM_OFF = SYSTEM_ON.replace('boolean true', 'boolean false');

async function planned(
  t: Parameters<typeof tempDir>[0],
  cfg: Record<string, unknown>,
  { installed = true } = {},
): Promise<{ commands: string[]; lines: string[] }> {
  const root = tempDir(t);
  if (installed) {
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    writeFileSync(join(root, 'usr/bin/byobu'), '#!/bin/sh\n', { mode: 0o755 });
  }
  const ctx = dryContext(root);
  await byobuModule.run(ctx, cfg);
  return { commands: ctx.commands(), lines: ctx.lines };
}

test('byobu_by_default user enables the launcher for the default user and system-wide, in one sh -c', async (t) => {
  const { commands } = await planned(t, { ...USERS, byobu_by_default: 'user' });
  assert.deepEqual(commands, [
    `/bin/sh -c X=0;  sudo -Hu "debian" byobu-launcher-install || X=$(($X+1)); ${SYSTEM_ON} exit $X`,
  ]);
});

test('byobu_by_default system, disable-system and disable plan the debconf step; disable also the user uninstall', async (t) => {
  assert.deepEqual((await planned(t, { ...USERS, byobu_by_default: 'system' })).commands, [
    `/bin/sh -c X=0; ${SYSTEM_ON} exit $X`,
  ]);
  assert.deepEqual((await planned(t, { ...USERS, byobu_by_default: 'disable-system' })).commands, [
    `/bin/sh -c X=0; ${SYSTEM_OFF} exit $X`,
  ]);
  assert.deepEqual((await planned(t, { ...USERS, byobu_by_default: 'disable' })).commands, [
    `/bin/sh -c X=0;  sudo -Hu "debian" byobu-launcher-uninstall || X=$(($X+1)); ${SYSTEM_OFF} exit $X`,
  ]);
  assert.deepEqual((await planned(t, { ...USERS, byobu_by_default: 'disable-user' })).commands, [
    `/bin/sh -c X=0;  sudo -Hu "debian" byobu-launcher-uninstall || X=$(($X+1));  exit $X`,
  ]);
});

test('byobu without the key, with an unknown value, or without a default user does as cloud-init', async (t) => {
  assert.deepEqual((await planned(t, USERS)).commands, []);
  const unknown = await planned(t, { ...USERS, byobu_by_default: 'sometimes' });
  assert.deepEqual(unknown.commands, []);
  assert.ok(
    unknown.lines.some((l) => l.includes('Unknown value sometimes for byobu_by_default')),
    unknown.lines.join('\n'),
  );
  // No default user: the user step is left out with a warning, the system step still runs.
  const noUser = await planned(t, { users: [], byobu_by_default: 'enable-user' });
  assert.deepEqual(noUser.commands, [`/bin/sh -c X=0; ${SYSTEM_ON} exit $X`]);
  assert.ok(
    noUser.lines.some((l) => l.includes('No default byobu user provided, can not launch install for the default user')),
  );
});

test('byobu missing from the target is installed before the debconf step, as 25.1 does (22.4 did not)', async (t) => {
  const { commands } = await planned(t, { ...USERS, byobu_by_default: 'system' }, { installed: false });
  assert.equal(commands.length, 3, commands.join('\n'));
  assert.match(commands[0] as string, /^apt-get .*update$/);
  assert.match(commands[1] as string, /^apt-get .*install byobu$/);
  assert.equal(commands[2], `/bin/sh -c X=0; ${SYSTEM_ON} exit $X`);
  // Without the key nothing is installed.
  assert.deepEqual((await planned(t, USERS, { installed: false })).commands, []);
  // A null value is get_cfg_option_str's 'None': byobu is installed, the value warned about, nothing set.
  const nulled = await planned(t, { ...USERS, byobu_by_default: null }, { installed: false });
  assert.equal(nulled.commands.length, 2, nulled.commands.join('\n'));
  assert.match(nulled.commands[1] as string, /^apt-get .*install byobu$/);
  assert.ok(
    nulled.lines.some((l) => l.includes('Unknown value None for byobu_by_default')),
    nulled.lines.join('\n'),
  );
});
