// Config-stage modules on sandbox roots: timezone, locale, keyboard, apt_pipelining, disable_ec2_metadata, ssh_import_id
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { APT_PIPELINING_FILE, aptPipeliningModule } from '../../src/modules/apt-pipelining';
import { disableEc2MetadataModule } from '../../src/modules/disable-ec2-metadata';
import { keyboardModule } from '../../src/modules/keyboard';
import { localeModule, readShellVar } from '../../src/modules/locale';
import { keyInNestedDict, sshImportIdModule } from '../../src/modules/ssh-import-id';
import { timezoneModule } from '../../src/modules/timezone';
import { CommandError } from '../../src/util/command-error';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';
import { moduleContext } from './module-context';

function put(root: string, path: string, text: string, mode = 0o644): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
  chmodSync(join(root, path), mode);
}

test('timezone writes /etc/timezone and links /etc/localtime; an unknown zone names the missing file', async (t) => {
  const root = tempDir(t);
  put(root, '/usr/share/zoneinfo/Europe/Berlin', 'TZif-berlin');
  await timezoneModule.run(moduleContext(root), { timezone: 'Europe/Berlin' });
  assert.equal(readFileSync(join(root, 'etc/timezone'), 'utf8'), 'Europe/Berlin\n');
  assert.ok(lstatSync(join(root, 'etc/localtime')).isSymbolicLink());
  assert.equal(readlinkSync(join(root, 'etc/localtime')), '/usr/share/zoneinfo/Europe/Berlin');
  // An existing regular localtime is replaced by a copy, as cloud-init's set_etc_timezone does.
  const root2 = tempDir(t);
  put(root2, '/usr/share/zoneinfo/UTC', 'TZif-utc');
  put(root2, '/etc/localtime', 'old');
  await timezoneModule.run(moduleContext(root2), { timezone: 'UTC' });
  assert.equal(readFileSync(join(root2, 'etc/localtime'), 'utf8'), 'TZif-utc');
  assert.ok(!lstatSync(join(root2, 'etc/localtime')).isSymbolicLink());
  await assert.rejects(timezoneModule.run(moduleContext(root2), { timezone: 'Mars/Olympus' }), /Invalid timezone Mars\/Olympus, no file found at \/usr\/share\/zoneinfo\/Mars\/Olympus/);
});

test('timezone on RHEL without systemd writes ZONE= to /etc/sysconfig/clock and copies localtime', async (t) => {
  const root = tempDir(t);
  put(root, '/usr/share/zoneinfo/Asia/Tokyo', 'TZif-tokyo');
  await timezoneModule.run(moduleContext(root, { distro: { name: 'rocky', family: 'redhat', version: '9' } }), { timezone: 'Asia/Tokyo' });
  assert.match(readFileSync(join(root, 'etc/sysconfig/clock'), 'utf8'), /^# Created by cloud-init v\. .*\nZONE=Asia\/Tokyo\n$/);
  assert.equal(readFileSync(join(root, 'etc/localtime'), 'utf8'), 'TZif-tokyo');
});

test('locale on Debian runs locale-gen and update-locale unless the file already says so', async (t) => {
  const root = tempDir(t);
  const ctx = dryContext(root);
  await localeModule.run(ctx, { locale: 'de_DE.UTF-8' });
  assert.deepEqual(ctx.commands(), ['locale-gen de_DE.UTF-8', 'update-locale --locale-file=/etc/default/locale LANG=de_DE.UTF-8']);
  put(root, '/etc/default/locale', 'LANG=de_DE.UTF-8\n');
  const ctx2 = dryContext(root);
  await localeModule.run(ctx2, { locale: 'de_DE.UTF-8' });
  assert.deepEqual(ctx2.commands(), []);
  const ctx3 = dryContext(root);
  await localeModule.run(ctx3, { locale: 'C.UTF-8', locale_configfile: '/etc/locale.conf' });
  assert.deepEqual(ctx3.commands(), ['update-locale --locale-file=/etc/locale.conf LANG=C.UTF-8']);
  const ctx4 = dryContext(root);
  await localeModule.run(ctx4, { locale: false });
  assert.deepEqual(ctx4.commands(), []);
  assert.equal(readShellVar('export LANG="en_GB.UTF-8"\n', 'LANG'), 'en_GB.UTF-8');
});

test('locale on SUSE and Alpine writes their files', async (t) => {
  const root = tempDir(t);
  await localeModule.run(moduleContext(root, { distro: { name: 'sles', family: 'suse', version: '15' } }), { locale: 'fr_FR.UTF-8' });
  assert.match(readFileSync(join(root, 'etc/sysconfig/language'), 'utf8'), /RC_LANG=fr_FR\.UTF-8\n$/);
  await localeModule.run(moduleContext(root, { distro: { name: 'alpine', family: 'alpine', version: '3.19' } }), {});
  assert.match(readFileSync(join(root, 'etc/profile.d/locale.sh'), 'utf8'), /export LANG=C\.UTF-8\n/);
});

test('locale reads the system locale from /etc/default/locale even when locale_configfile names another file', async (t) => {
  const root = tempDir(t);
  put(root, '/etc/default/locale', 'LANG=de_DE.UTF-8\n');
  put(root, '/etc/locale.conf', 'LANG=fr_FR.UTF-8\n');
  const ctx = dryContext(root);
  await localeModule.run(ctx, { locale: 'de_DE.UTF-8', locale_configfile: '/etc/locale.conf' });
  assert.deepEqual(ctx.commands(), [], 'cloud-init compares with LANG of /etc/default/locale and only checks that the configfile exists');
});

test("locale runs the Debian rootfs's own locale-gen and update-locale: a locale enabled in /etc/locale.gen is compiled and set", async (t) => {
  if (!need(t, isRoot() && hasCommand('unshare') && hasCommand('debootstrap'), 'needs root, unshare and debootstrap for the cached Debian rootfs')) return;
  const root = copyRootfs(tempDir(t, 'kiln-late-'));
  await localeModule.run(moduleContext(root), { locale: 'C.UTF-8' });
  assert.match(readFileSync(join(root, 'etc/default/locale'), 'utf8'), /LANG=C\.UTF-8/);
  appendFileSync(join(root, 'etc/locale.gen'), 'de_DE.UTF-8 UTF-8\n');
  const ctx = moduleContext(root);
  await localeModule.run(ctx, { locale: 'de_DE.UTF-8' });
  assert.match(ctx.outputText(), /Generating locales \(this might take a while\)\.\.\.\n {2}de_DE\.UTF-8\.\.\. done\nGeneration complete\.\n/);
  assert.ok(existsSync(join(root, 'usr/lib/locale/locale-archive')), 'localedef compiled the locale archive');
  assert.match(readFileSync(join(root, 'etc/default/locale'), 'utf8'), /^LANG=de_DE\.UTF-8$/m);
});

test('locale fails as cloud-init does where update-locale rejects a locale that was never generated', async (t) => {
  if (!need(t, isRoot() && hasCommand('unshare') && hasCommand('debootstrap'), 'needs root, unshare and debootstrap for the cached Debian rootfs')) return;
  const root = copyRootfs(tempDir(t, 'kiln-late-'));
  const ctx = moduleContext(root);
  await assert.rejects(localeModule.run(ctx, {}), (err: unknown) => {
    assert.ok(err instanceof CommandError, String(err));
    assert.match(err.message, /^command 'update-locale --locale-file=\/etc\/default\/locale LANG=en_US\.UTF-8' exited with code [1-9]/);
    return true;
  });
  assert.match(ctx.outputText(), /Generating locales/, "Debian's locale-gen ran (for the default en_US.UTF-8) before update-locale");
  assert.doesNotMatch(readFileSync(join(root, 'etc/default/locale'), 'utf8'), /^LANG=/m);
});

test('keyboard needs systemd; with it, localectl set-x11-keymap then a console-setup restart on Debian', async (t) => {
  const root = tempDir(t);
  await assert.rejects(keyboardModule.run(dryContext(root), { keyboard: { layout: 'de' } }), /needs systemd/);
  mkdirSync(join(root, 'run/systemd/system'), { recursive: true });
  const ctx = dryContext(root);
  await keyboardModule.run(ctx, { keyboard: { layout: 'de', variant: 'nodeadkeys', options: 'compose:rwin' } });
  assert.deepEqual(ctx.commands(), ['localectl set-x11-keymap de pc105 nodeadkeys compose:rwin', 'systemctl restart console-setup']);
  await assert.rejects(keyboardModule.run(dryContext(root), { keyboard: { model: 'pc104' } }), /keyboard\.layout/);
});

test('apt_pipelining writes the depth for false and 0-5, nothing for os, warns otherwise', async (t) => {
  const root = tempDir(t);
  await aptPipeliningModule.run(moduleContext(root), { apt_pipelining: false });
  assert.equal(readFileSync(join(root, APT_PIPELINING_FILE), 'utf8'), `//Written by cloud-init per 'apt_pipelining'\nAcquire::http::Pipeline-Depth "0";\n`);
  await aptPipeliningModule.run(moduleContext(root), { apt_pipelining: 3 });
  assert.match(readFileSync(join(root, APT_PIPELINING_FILE), 'utf8'), /Pipeline-Depth "3"/);
  const root2 = tempDir(t);
  const ctx = moduleContext(root2);
  await aptPipeliningModule.run(ctx, { apt_pipelining: 'os' });
  await aptPipeliningModule.run(ctx, { apt_pipelining: 'lots' });
  assert.ok(!existsSync(join(root2, APT_PIPELINING_FILE)));
  assert.ok(ctx.lines.some((l) => l.includes('Invalid option for apt_pipelining: lots')));
});

test('disable_ec2_metadata plans ip route prohibit when ip exists (never run for real)', async (t) => {
  const root = tempDir(t);
  const ctx = dryContext(root);
  await disableEc2MetadataModule.run(ctx, { disable_ec2_metadata: false });
  assert.deepEqual(ctx.commands(), []);
  // The dry run answers every `command -v` with success, so ip is found.
  await disableEc2MetadataModule.run(ctx, { disable_ec2_metadata: true });
  assert.deepEqual(ctx.commands().slice(-1), ['ip route add prohibit 169.254.169.254']);
});

test('ssh_import_id runs sudo -Hu USER ssh-import-id IDS for the default and named users', async (t) => {
  const root = tempDir(t);
  put(root, '/etc/passwd', 'root:x:0:0::/root:/bin/sh\ndebian:x:1000:1000::/home/debian:/bin/bash\nann:x:1001:1001::/home/ann:/bin/bash\n');
  const cfg = {
    system_info: { default_user: { name: 'debian' } },
    users: ['default', { name: 'ann', ssh_import_id: ['gh:ann', 'lp:ann'] }],
    ssh_import_id: ['gh:deb'],
  };
  const ctx = dryContext(root);
  await sshImportIdModule.run(ctx, cfg);
  assert.deepEqual(ctx.commands(), [], 'skipped: ssh-import-id is not installed in the target');
  put(root, '/usr/bin/ssh-import-id', '#!/bin/sh\n', 0o755);
  const ctx2 = dryContext(root);
  await sshImportIdModule.run(ctx2, cfg);
  // Users in normalize_users_groups order (the default user is re-added after the others, as cloud-init's dict does).
  assert.deepEqual(ctx2.commands(), [
    'sudo --preserve-env=https_proxy -Hu ann ssh-import-id gh:ann lp:ann',
    'sudo --preserve-env=https_proxy -Hu debian ssh-import-id gh:deb',
  ]);
  assert.ok(keyInNestedDict({ users: [{ name: 'x', ssh_import_id: [] }] }, 'ssh_import_id'));
  assert.ok(!keyInNestedDict({ users: ['default'] }, 'ssh_import_id'));
});

