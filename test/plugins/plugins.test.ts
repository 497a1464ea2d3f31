// The plugins against the Win32 layer faked at the binding boundary and an in-memory file system.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { toComputerName } from '../../src/plugins/netbios-name';
import type { PluginContext } from '../../src/plugins/plugin';
import { findPlugin, PLUGINS } from '../../src/plugins/registry';
import { randomPassword } from '../../src/plugins/random-password';
import type { InstanceData } from '../../src/sources/datasource';
import { Logger, MemorySink } from '../../src/util/log';
import { UF } from '../../src/platform/windows/win32/netapi32';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

function context(conf: string, instance: Partial<InstanceData> = {}, win = new FakeWindows()) {
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  const files = new FakeFiles();
  const ctx: PluginContext = {
    platform: files,
    windows: win.platform(logger),
    log: logger.for('test'),
    conf: loadCloudbaseConf([{ path: 'c.conf', text: `[DEFAULT]\n${conf}` }]),
    instance: {
      instanceId: 'i-1',
      cloudName: 'openstack',
      platform: 'openstack',
      subplatform: 'x',
      publicKeys: [],
      metadata: {},
      ...instance,
    },
    shared: new Map(),
    randomPassword: (n) => 'Rand0m!'.padEnd(n, 'z'),
    secret: (v) => logger.redactor.add(v),
    env: { SystemRoot: 'C:\\Windows', PROCESSOR_ARCHITECTURE: 'AMD64' },
  };
  return { ctx, win, files, lines: sink.lines };
}

function plugin(name: string) {
  const p = findPlugin(name);
  assert.ok(p, `${name} is registered`);
  return p;
}

test("every registered plugin has cloudbase-init's class path and short name", () => {
  for (const p of PLUGINS) {
    assert.match(p.classPath, /^cloudbaseinit\.plugins\.(common|windows)\.[a-z]+\.[A-Za-z]+$/);
    assert.equal(p.classPath.split('.').pop(), p.name);
  }
  assert.equal(new Set(PLUGINS.map((p) => p.name)).size, PLUGINS.length);
});

test('computer names follow the NetBIOS rules', () => {
  assert.deepEqual(toComputerName('web-01.example.com', true).name, 'web-01');
  assert.equal(toComputerName('a-very-long-host-name-indeed', true).name, 'a-very-long-hos');
  assert.equal(toComputerName('a-very-long-host-name-indeed', false).name, 'a-very-long-host-name-indeed');
  assert.equal(toComputerName('abcdefghijklmn-x', true).name, 'abcdefghijklmn0');
});

test('SetHostNamePlugin sets the name once and asks for a reboot; unchanged names need none', async () => {
  const { ctx, win } = context('', { localHostname: 'db-server-0001-primary.cloud' });
  assert.deepEqual(await plugin('SetHostNamePlugin').execute(ctx), { status: 'done', reboot: true });
  assert.deepEqual(win.calls, ['SetComputerNameExW db-server-00010']);
  assert.deepEqual(
    await plugin('SetHostNamePlugin').execute(ctx),
    { status: 'done', reboot: true },
    'pending for the next boot still needs it',
  );
  assert.equal(win.calls.length, 1, 'not set twice');
  win.computerName = 'DB-SERVER-00010';
  assert.deepEqual(await plugin('SetHostNamePlugin').execute(ctx), { status: 'done', reboot: false });
  const none = context('');
  assert.deepEqual(await plugin('SetHostNamePlugin').execute(none.ctx), { status: 'done', reboot: false });
});

test('CreateUserPlugin creates the user with the injected password and adds it to every group', async () => {
  const { ctx, win, lines } = context('username=cloud\ngroups=Administrators,Users\n', { adminPassword: 'S3cret!pw' });
  assert.deepEqual(await plugin('CreateUserPlugin').execute(ctx), { status: 'done', reboot: false });
  assert.equal(win.users.get('cloud')?.password, 'S3cret!pw');
  assert.deepEqual(win.groups.get('administrators'), ['cloud']);
  assert.deepEqual(win.groups.get('users'), ['cloud']);
  assert.equal(ctx.shared.get('admin_password'), 'S3cret!pw');
  ctx.log.warn('a message that happens to carry S3cret!pw');
  assert.doesNotMatch(lines.join(''), /S3cret!pw/, 'the password is registered as a secret');
  // An existing user gets the password reset instead.
  const again = context('username=cloud\ninject_user_password=false\n', {}, win);
  await plugin('CreateUserPlugin').execute(again.ctx);
  assert.equal(win.users.get('cloud')?.password, 'Rand0m!zzzzzzzzzzzzz');
  assert.ok(win.calls.includes('NetUserSetInfo(1003) cloud'));
  assert.deepEqual(
    win.calls.filter((c) => /^(LogonUserW|LoadUserProfileW)/.test(c)),
    ['LogonUserW cloud', 'LoadUserProfileW cloud token 77'],
    'the profile is loaded once: the second run finds it',
  );
  assert.equal(ctx.windows.userProfilePath('cloud', false), 'C:\\Users\\cloud');
});

// Wine's NetLocalGroupAddMembers accepts any group name, so the failing call is the fake's (it answers as Windows
// does, NERR_GroupNotFound); the binding itself runs under wine in the e2e tests.
test('CreateUserPlugin takes admin_username from the metadata; a group it cannot join is logged and skipped, and the plugin is done', async () => {
  const { ctx, win, lines } = context('groups=No Such Group,Users\n', { metadata: { admin_username: 'meta-admin' } });
  assert.deepEqual(
    await plugin('CreateUserPlugin').execute(ctx),
    { status: 'done', reboot: false },
    'done, so it does not rerun (and reset the password) at every boot',
  );
  assert.ok(win.users.has('meta-admin'));
  assert.deepEqual(win.groups.get('users'), ['meta-admin'], 'the groups after the failing one are still joined');
  assert.match(
    lines.join(''),
    /\[ERROR\]: Cannot add user to group "No Such Group": NetLocalGroupAddMembers 'meta-admin' to 'No Such Group' failed: The specified local group does not exist/,
  );
});

test('SetUserPasswordPlugin: injected password and first_logon_behaviour', async () => {
  const win = new FakeWindows();
  win.users.set('admin', { password: 'old', comment: '', flags: 0x201 });
  const { ctx } = context('', { adminPassword: 'N3w!pass' }, win);
  assert.deepEqual(await plugin('SetUserPasswordPlugin').execute(ctx), { status: 'done', reboot: false });
  assert.equal(win.users.get('admin')?.password, 'N3w!pass');
  assert.equal(win.users.get('admin')?.passwordExpired, true, 'clear_text_injected_only expires an injected password');
  const w2 = new FakeWindows();
  w2.users.set('admin', { password: 'old', comment: '', flags: 0x201 });
  await plugin('SetUserPasswordPlugin').execute(
    context('first_logon_behaviour=no\n', { adminPassword: 'N3w!pass' }, w2).ctx,
  );
  assert.equal(w2.users.get('admin')?.passwordExpired, undefined);
  const missing = context('', {}, new FakeWindows());
  assert.deepEqual(await plugin('SetUserPasswordPlugin').execute(missing.ctx), { status: 'next-boot', reboot: false });
});

test('first_logon_behaviour after CreateUserPlugin clears "password never expires", so the change is really asked for', async () => {
  const { ctx, win } = context('username=cloud\nfirst_logon_behaviour=always\n', { adminPassword: 'S3cret!pw' });
  await plugin('CreateUserPlugin').execute(ctx);
  assert.equal(
    (win.users.get('cloud')?.flags ?? 0) & UF.DONT_EXPIRE_PASSWD,
    UF.DONT_EXPIRE_PASSWD,
    'CreateUser makes the password one that never expires',
  );
  await plugin('SetUserPasswordPlugin').execute(ctx);
  const flags = win.users.get('cloud')?.flags ?? 0;
  assert.equal(flags & UF.DONT_EXPIRE_PASSWD, 0, 'UF_DONT_EXPIRE_PASSWD is cleared');
  assert.equal(win.users.get('cloud')?.passwordExpired, true, 'usri4_password_expired is set');
  assert.equal(flags & (UF.SCRIPT | UF.NORMAL_ACCOUNT), UF.SCRIPT | UF.NORMAL_ACCOUNT, 'the other flags are kept');
  assert.deepEqual(
    win.calls.filter((c) => c.startsWith('NetUserSetInfo(') && c.endsWith(' cloud')),
    ['NetUserSetInfo(1003) cloud', 'NetUserSetInfo(4) cloud'],
    'one level 4 write, after the password, as cloudbase-init',
  );
});

test('random passwords are long enough and meet complexity rules', () => {
  for (let i = 0; i < 50; i++) {
    const p = randomPassword(20);
    assert.equal(p.length, 20);
    assert.match(p, /[A-Z]/);
    assert.match(p, /[a-z]/);
    assert.match(p, /[0-9]/);
    assert.match(p, /[^A-Za-z0-9]/);
  }
  assert.notEqual(randomPassword(20), randomPassword(20));
});

test('UserDataPlugin runs a rem cmd script through cmd.exe and maps 1001/1002/1003', async () => {
  for (const [code, expected] of [
    [0, { status: 'done', reboot: false }],
    [1001, { status: 'done', reboot: true }],
    [1002, { status: 'next-boot', reboot: false }],
    [1003, { status: 'next-boot', reboot: true }],
  ] as const) {
    const { ctx, files } = context('', { userData: Buffer.from('rem cmd\r\necho hello\r\n') });
    let body = '';
    files.onRun = (argv, fs) => {
      body = Buffer.from(fs.get(argv[2]?.replace(/^C:\\/i, '').toLowerCase() ?? '') ?? []).toString();
      return { code };
    };
    assert.deepEqual(await plugin('UserDataPlugin').execute(ctx), expected);
    assert.equal(files.runs[0]?.[0], 'cmd.exe');
    assert.match(files.runs[0]?.[2] ?? '', /^C:\\Windows\\Temp\\kiln-[0-9a-f]+\.cmd$/);
    assert.match(body, /^rem cmd/);
    assert.equal(files.files.size, 0, 'the temp script is removed');
  }
});

test('UserDataPlugin: gzip, #ps1 and MIME multipart with cloud-config', async () => {
  const { ctx, files, win } = context('', { userData: gzipSync(Buffer.from('#ps1\nWrite-Host hi\n')) });
  await plugin('UserDataPlugin').execute(ctx);
  assert.match(files.runs[0]?.[0] ?? '', /WindowsPowerShell\\v1\.0\\powershell\.exe$/);
  const mime = [
    'Content-Type: multipart/mixed; boundary="XX"',
    'MIME-Version: 1.0',
    '',
    '--XX',
    'Content-Type: text/cloud-config',
    '',
    '#cloud-config',
    'write_files:',
    '  - path: C:\\kiln\\hello.txt',
    '    content: aGVsbG8=',
    '    encoding: b64',
    'groups:',
    '  - devs',
    'set_timezone: UTC',
    'packages: [nope]',
    '--XX',
    'Content-Type: text/x-shellscript',
    '',
    'rem cmd',
    'exit 1002',
    '--XX--',
    '',
  ].join('\n');
  const m = context('', { userData: Buffer.from(mime) }, win);
  m.win.setValue('HKLM', 'SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Time Zones\\UTC', 'TZI', {
    type: 'REG_BINARY',
    data: new Uint8Array(44),
  });
  m.files.onRun = () => ({ code: 1002 });
  assert.deepEqual(await plugin('UserDataPlugin').execute(m.ctx), { status: 'next-boot', reboot: false });
  assert.equal(Buffer.from(m.files.files.get('kiln\\hello.txt') ?? []).toString(), 'hello');
  assert.ok(m.win.groups.has('devs'));
  assert.ok(m.win.calls.includes('SetDynamicTimeZoneInformation UTC'));
  assert.match(m.lines.join(''), /'packages' is not supported on Windows/);
});

test("UserDataPlugin walks the parts in order: a part asking for a reboot (1001/1003) ends the walk, and the result is the last part run's (execcmd.get_plugin_return_value)", async () => {
  const part = (name: string, body: string) => [
    '--XX',
    'Content-Type: text/x-shellscript',
    `Content-Disposition: attachment; filename="${name}"`,
    '',
    body,
  ];
  const mime = (...parts: string[][]) =>
    Buffer.from(['Content-Type: multipart/mixed; boundary="XX"', '', ...parts.flat(), '--XX--', ''].join('\n'));
  const exitCodes: Record<string, number> = { 'again.cmd': 1002, 'reboot.cmd': 1003, 'plain.cmd': 0, 'tool.exe': 0 };
  const run = async (userData: Buffer) => {
    const { ctx, files } = context('', { userData });
    const ran: string[] = [];
    files.onRun = (argv, fs) => {
      const body = Buffer.from(fs.get((argv.at(-1) ?? '').replace(/^C:\\/i, '').toLowerCase()) ?? []).toString();
      const name = /^(\S+)/.exec(body)?.[1] ?? '?';
      ran.push(name);
      return { code: exitCodes[name] ?? 0 };
    };
    return { result: await plugin('UserDataPlugin').execute(ctx), ran, runs: files.runs };
  };
  // 1003 stops the walk: plain.cmd is not run in this boot (and the plugin runs again at the next).
  let r = await run(
    mime(part('again.cmd', 'again.cmd'), part('reboot.cmd', 'reboot.cmd'), part('plain.cmd', 'plain.cmd')),
  );
  assert.deepEqual(r.ran, ['again.cmd', 'reboot.cmd']);
  assert.deepEqual(r.result, { status: 'next-boot', reboot: true });
  // No reboot: every part runs, and the status is the last one's (1002 first, then 0: done).
  r = await run(mime(part('again.cmd', 'again.cmd'), part('plain.cmd', 'plain.cmd')));
  assert.deepEqual(r.ran, ['again.cmd', 'plain.cmd']);
  assert.deepEqual(r.result, { status: 'done', reboot: false });
  // An .exe part is written out and run as a program, by its file name.
  r = await run(mime(part('tool.exe', 'tool.exe')));
  assert.deepEqual(r.ran, ['tool.exe']);
  assert.match(r.runs[0]?.[0] ?? '', /^C:\\Windows\\Temp\\kiln-[0-9a-f]+\.exe$/);
});

test("cloud-config time zones as cloudbase-init: IANA names (set_timezone or timezone) mapped to Windows zones by CLDR's table, Windows names accepted; a key that fails fails alone", async () => {
  const tzKey = (zone: string) => `SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Time Zones\\${zone}`;
  for (const [doc, zone] of [
    ['#cloud-config\nset_timezone: Europe/Berlin\n', 'W. Europe Standard Time'],
    ['#cloud-config\ntimezone: America/New_York\n', 'Eastern Standard Time'],
    ['#cloud-config\nset_timezone: Tokyo Standard Time\n', 'Tokyo Standard Time'],
  ] as const) {
    const { ctx, win } = context('', { userData: Buffer.from(doc) });
    win.setValue('HKLM', tzKey(zone), 'TZI', { type: 'REG_BINARY', data: new Uint8Array(44) });
    assert.deepEqual(await plugin('UserDataPlugin').execute(ctx), { status: 'done', reboot: false });
    assert.ok(win.calls.includes(`SetDynamicTimeZoneInformation ${zone}`), `${doc.trim()}: ${win.calls.join(', ')}`);
  }
  // An unknown zone is logged; write_files before it and groups after it are still applied.
  const { ctx, win, files, lines } = context('', {
    userData: Buffer.from(
      '#cloud-config\nset_timezone: Nowhere/Atlantis\ngroups: [ops]\nwrite_files:\n  - path: C:\\kiln\\a.txt\n    content: a\n',
    ),
  });
  assert.deepEqual(await plugin('UserDataPlugin').execute(ctx), { status: 'done', reboot: false });
  assert.equal(Buffer.from(files.files.get('kiln\\a.txt') ?? []).toString(), 'a');
  assert.ok(win.groups.has('ops'));
  assert.match(
    lines.join(''),
    /\[ERROR\]: #cloud-config: processing 'set_timezone' failed: unknown Windows time zone 'Nowhere\/Atlantis'/,
  );
});

test("cloud-config that renames the host asks, as cloudbase-init's executor, for 1003: a reboot and another run of the user data", async () => {
  const { ctx } = context('', { userData: Buffer.from('#cloud-config\nset_hostname: web-07\n') });
  assert.deepEqual(await plugin('UserDataPlugin').execute(ctx), { status: 'next-boot', reboot: true });
});

test("UserDataPlugin renders a `## template: jinja` user data with cloudbase-init's instance data (v1, ds.meta_data, the v1 keys at the top)", async () => {
  const doc =
    '## template: jinja\n#cloud-config\nset_hostname: {{ v1.local_hostname }}-{{ ds.meta_data.role }}\nwrite_files:\n  - path: C:\\kiln\\id.txt\n    content: "{{ instance_id }} {{ v1.public_ssh_keys | length }}"\n';
  const { ctx, win, files } = context('', {
    userData: Buffer.from(doc),
    localHostname: 'web',
    metadata: { role: 'db' },
    publicKeys: ['ssh-ed25519 AAAA a@b'],
  });
  await plugin('UserDataPlugin').execute(ctx);
  assert.ok(win.calls.includes('SetComputerNameExW web-db'), win.calls.join(', '));
  assert.equal(Buffer.from(files.files.get('kiln\\id.txt') ?? []).toString(), 'i-1 1');
  // An undefined name prints as cloudbase-init's MissingJinjaVariable does.
  const missing = context('', {
    userData: Buffer.from(
      '## template: jinja\n#cloud-config\nwrite_files:\n  - path: C:\\kiln\\m.txt\n    content: "{{ v1.nope }}"\n',
    ),
  });
  await plugin('UserDataPlugin').execute(missing.ctx);
  assert.equal(Buffer.from(missing.files.files.get('kiln\\m.txt') ?? []).toString(), 'CI_MISSING_JINJA_VAR/nope');
  // Using an undefined name further is an error naming its line (the header is line 1); nothing of the part runs.
  const bad = context('', { userData: Buffer.from('## template: jinja\nrem cmd\necho {{ v1.nope.deeper }}\n') });
  await assert.rejects(plugin('UserDataPlugin').execute(bad.ctx), /jinja template, line 3: 'v1\.nope' is undefined/);
  assert.deepEqual(bad.files.runs, []);
});

test('UserDataPlugin: userdata_save_path gets the decoded user data (%VAR% expanded); process_userdata=false runs nothing', async () => {
  const { ctx, files } = context('userdata_save_path=%SystemRoot%\\kiln\\UserData.bin\nprocess_userdata=false\n', {
    userData: gzipSync(Buffer.from('rem cmd\r\necho hi\r\n')),
  });
  assert.deepEqual(await plugin('UserDataPlugin').execute(ctx), { status: 'done', reboot: false });
  assert.equal(Buffer.from(files.files.get('windows\\kiln\\userdata.bin') ?? []).toString(), 'rem cmd\r\necho hi\r\n');
  assert.deepEqual(files.runs, [], 'not processed');
});

test('cloud-config users, runcmd and ntp', async () => {
  const cc =
    '#cloud-config\nusers:\n  - default\n  - name: alice\n    passwd: Al1ce!pw\n    groups: [Administrators, ops]\nntp:\n  servers: [ntp1.example, ntp2.example]\nruncmd:\n  - echo one\n  - [echo, "two words"]\n';
  const { ctx, win, files } = context('', { userData: Buffer.from(cc) });
  let body = '';
  files.onRun = (argv, fs) => {
    body = Buffer.from(fs.get(argv[2]?.replace(/^C:\\/i, '').toLowerCase() ?? '') ?? []).toString();
    return {};
  };
  assert.deepEqual(await plugin('UserDataPlugin').execute(ctx), { status: 'done', reboot: false });
  assert.equal(win.users.get('alice')?.password, 'Al1ce!pw');
  assert.deepEqual(win.groups.get('ops'), ['alice']);
  // As cloudbase-init's SetNtpPlugin: w32tm sets the peers and has the service reread them.
  assert.deepEqual(
    files.runs.find((r) => /w32tm\.exe$/i.test(r[0] ?? '')),
    [
      'C:\\Windows\\System32\\w32tm.exe',
      '/config',
      '/manualpeerlist:ntp1.example ntp2.example',
      '/syncfromflags:manual',
      '/update',
    ],
  );
  assert.equal(body, '@echo off\r\necho one\r\necho "two words"\r\n');
});

test('LocalScriptsPlugin runs scripts in name order and stops at a reboot request', async () => {
  const { ctx, files } = context('local_scripts_path=C:\\Scripts\\\n');
  for (const n of ['b.ps1', 'a.cmd', 'c.cmd', 'notes.txt']) await files.writeFile(`C:\\Scripts\\${n}`, 'x');
  files.onRun = (argv) => ({ code: /b\.ps1$/.test(argv[argv.length - 1] ?? '') ? 1003 : 0 });
  assert.deepEqual(await plugin('LocalScriptsPlugin').execute(ctx), { status: 'next-boot', reboot: true });
  assert.deepEqual(
    files.runs.map((r) => r[r.length - 1]),
    ['C:\\Scripts\\a.cmd', 'C:\\Scripts\\b.ps1'],
  );
  const none = context('local_scripts_path=C:\\Nowhere\n');
  assert.deepEqual(await plugin('LocalScriptsPlugin').execute(none.ctx), { status: 'done', reboot: false });
});

test('registry plugins write the documented values', async () => {
  const { ctx, win } = context(
    'enable_automatic_updates=false\nsan_policy=OfflineShared\ntrim_enabled=true\nrdp_set_keepalive=true\npage_file_volume_mount_points=C:\\,D:\\\n',
  );
  for (const n of ['WindowsAutoUpdatesPlugin', 'SANPolicyPlugin', 'TrimConfigPlugin', 'RDPSettingsPlugin'])
    assert.equal((await plugin(n).execute(ctx)).reboot, false);
  assert.deepEqual(await plugin('PageFilesPlugin').execute(ctx), { status: 'done', reboot: true });
  assert.deepEqual(
    await plugin('PageFilesPlugin').execute(ctx),
    { status: 'done', reboot: false },
    'unchanged: no reboot',
  );
  const v = (k: string, n: string) => win.getValue('HKLM', k, n);
  assert.deepEqual(v('SOFTWARE\\Policies\\Microsoft\\Windows\\WindowsUpdate\\AU', 'NoAutoUpdate'), {
    type: 'REG_DWORD',
    data: 1,
  });
  assert.deepEqual(v('SYSTEM\\CurrentControlSet\\Services\\partmgr\\Parameters', 'SanPolicy'), {
    type: 'REG_DWORD',
    data: 2,
  });
  assert.deepEqual(v('SYSTEM\\CurrentControlSet\\Control\\FileSystem', 'DisableDeleteNotification'), {
    type: 'REG_DWORD',
    data: 0,
  });
  assert.deepEqual(v('SOFTWARE\\Policies\\Microsoft\\Windows NT\\Terminal Services', 'KeepAliveEnable'), {
    type: 'REG_DWORD',
    data: 1,
  });
  assert.deepEqual(v('SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management', 'PagingFiles'), {
    type: 'REG_MULTI_SZ',
    data: ['C:\\pagefile.sys 0 0', 'D:\\pagefile.sys 0 0'],
  });
  const bad = context('san_policy=Sometimes\n');
  await assert.rejects(plugin('SANPolicyPlugin').execute(bad.ctx), /san_policy 'Sometimes' is not one of OnlineAll/);
});

test("command plugins run the Windows tools with cloudbase-init's settings", async () => {
  const { ctx, files } = context(
    'display_idle_timeout=600\nbcd_boot_status_policy=IgnoreAllFailures\nbcd_enable_auto_recovery=true\nkms_host=kms.example:1688\nactivate_windows=true\nlog_licensing_info=false\n',
  );
  for (const n of [
    'DisplayIdleTimeoutConfigPlugin',
    'BootStatusPolicyPlugin',
    'BCDConfigPlugin',
    'WindowsLicensingPlugin',
  ])
    await plugin(n).execute(ctx);
  assert.deepEqual(
    files.runs.map((r) => r.map((a) => a.replace(/^C:\\Windows\\System32\\/, '')).join(' ')),
    [
      'powercfg.exe /setacvalueindex SCHEME_CURRENT SUB_VIDEO VIDEOIDLE 600',
      'powercfg.exe /setactive SCHEME_CURRENT',
      'bcdedit.exe /set {current} bootstatuspolicy IgnoreAllFailures',
      'bcdedit.exe /set {current} recoveryenabled Yes',
      'cscript.exe //NoLogo slmgr.vbs /skms kms.example:1688',
      'cscript.exe //NoLogo slmgr.vbs /ato',
    ],
  );
});

test('SetUserSSHPublicKeysPlugin writes authorized_keys in the profile, creating the profile when missing', async () => {
  const { ctx, win, files } = context('username=cloud\n', {
    publicKeys: ['ssh-ed25519 AAAA one', 'ssh-rsa BBBB two '],
  });
  await assert.rejects(plugin('SetUserSSHPublicKeysPlugin').execute(ctx), /user "cloud" does not exist/);
  win.users.set('cloud', { password: 'x', comment: '', flags: 0x201 });
  assert.deepEqual(await plugin('SetUserSSHPublicKeysPlugin').execute(ctx), { status: 'done', reboot: false });
  assert.ok(win.calls.includes('CreateProfile cloud'));
  assert.equal(
    Buffer.from(files.files.get('users\\cloud\\.ssh\\authorized_keys') ?? []).toString(),
    'ssh-ed25519 AAAA one\nssh-rsa BBBB two\n',
  );
  await plugin('SetUserSSHPublicKeysPlugin').execute(ctx);
  assert.equal(win.calls.filter((c) => c === 'CreateProfile cloud').length, 1, 'an existing profile is reused');
});

test('ConfigWinRMListenerPlugin: certificate for the computer name, WinRM started, HTTPS listener with its thumbprint, firewall, basic auth', async () => {
  const win = new FakeWindows();
  win.computerName = 'WEB01';
  win.serviceStates.set('winrm', 1);
  const { ctx, files } = context('winrm_configure_http_listener=true\n', {}, win);
  files.onRun = (argv) => ({ code: argv[3] === 'get' && argv[4]?.includes('HTTPS') ? 0 : argv[3] === 'get' ? 1 : 0 });
  assert.deepEqual(await plugin('ConfigWinRMListenerPlugin').execute(ctx), { status: 'done', reboot: false });
  assert.deepEqual(win.certificates, [{ subject: 'CN=WEB01', store: 'MY', thumbprint: `${'A'.repeat(39)}1` }]);
  const runs = files.runs.map((r) => r.map((a) => a.replace(/^C:\\Windows\\System32\\/, '')).join(' '));
  assert.deepEqual(runs, [
    'sc.exe config WinRM start= auto',
    'net.exe start WinRM',
    'cscript.exe //NoLogo winrm.vbs get winrm/config/Listener?Address=*+Transport=HTTPS',
    'cscript.exe //NoLogo winrm.vbs delete winrm/config/Listener?Address=*+Transport=HTTPS',
    `cscript.exe //NoLogo winrm.vbs create winrm/config/Listener?Address=*+Transport=HTTPS @{Hostname="WEB01";CertificateThumbprint="${'A'.repeat(39)}1"}`,
    'netsh.exe advfirewall firewall delete rule name=WinRM HTTPS',
    'netsh.exe advfirewall firewall add rule name=WinRM HTTPS dir=in action=allow protocol=TCP localport=5986',
    'cscript.exe //NoLogo winrm.vbs get winrm/config/Listener?Address=*+Transport=HTTP',
    'cscript.exe //NoLogo winrm.vbs create winrm/config/Listener?Address=*+Transport=HTTP @{}',
    'netsh.exe advfirewall firewall delete rule name=WinRM HTTP',
    'netsh.exe advfirewall firewall add rule name=WinRM HTTP dir=in action=allow protocol=TCP localport=5985',
    'cscript.exe //NoLogo winrm.vbs set winrm/config/service/auth @{Basic="true"}',
  ]);
  // No WinRM service: as cloudbase-init, nothing is made (no certificate at every boot it runs again) and it runs
  // again.
  const missing = context('', {}, new FakeWindows());
  assert.deepEqual(await plugin('ConfigWinRMListenerPlugin').execute(missing.ctx), {
    status: 'next-boot',
    reboot: false,
  });
  assert.match(missing.lines.join(''), /Cannot configure the WinRM listener as the service is not available/);
  assert.deepEqual(missing.win.certificates, []);
  assert.deepEqual(missing.files.runs, []);
});

test('ConfigWinRMListenerPlugin: a failed run takes the certificate it made and its key away again (the plugin runs again at the next boot)', async () => {
  const win = new FakeWindows();
  win.computerName = 'WEB01';
  win.serviceStates.set('winrm', 1);
  // winrm create fails: the certificate made for it is deleted again, with its key container.
  const { ctx, files } = context('', {}, win);
  files.onRun = (argv) => ({
    code: argv[3] === 'create' || argv[3] === 'get' ? 1 : 0,
    stderr: argv[3] === 'create' ? 'WSManFault' : '',
  });
  const deleted: Array<string | undefined> = [];
  const remove = ctx.windows.deleteCertificate.bind(ctx.windows);
  ctx.windows.deleteCertificate = (thumbprint, store, container) => {
    deleted.push(container);
    return remove(thumbprint, store, container);
  };
  await assert.rejects(
    plugin('ConfigWinRMListenerPlugin').execute(ctx),
    /winrm create winrm\/config\/Listener\?Address=\*\+Transport=HTTPS failed \(1\): WSManFault/,
  );
  assert.deepEqual(win.certificates, [], 'no certificate left behind by the failed run');
  assert.equal(deleted.length, 1);
  assert.match(deleted[0] ?? '', /^kiln-CN_WEB01-\d+$/);
});

test('ConfigWinRMCertificateAuthPlugin: admin_cert0.. joined, imported to Root and TrustedPeople, mapped to the admin user; the password never in errors', async () => {
  const der = Buffer.from('not really DER, the fake only hashes it');
  const pem = `-----BEGIN CERTIFICATE-----\n${der.toString('base64')}\n-----END CERTIFICATE-----\n`;
  const win = new FakeWindows();
  const { createHash } = await import('node:crypto');
  const thumbprint = createHash('sha1').update(der).digest('hex').toUpperCase();
  win.certificateUpns.set(thumbprint, 'admin@kiln.test');
  const { ctx, files } = context(
    'username=admin\n',
    { metadata: { meta: { admin_cert0: pem.slice(0, 40), admin_cert1: pem.slice(40) } } },
    win,
  );
  await files.writeFile('Windows\\System32\\winrm.vbs', "' WinRM");
  assert.deepEqual(
    await plugin('ConfigWinRMCertificateAuthPlugin').execute(ctx),
    { status: 'done', reboot: false },
    'no password in this run: skipped',
  );
  assert.equal(files.runs.length, 0);
  ctx.shared.set('admin_password', 'Pa$$w0rd!');
  await plugin('ConfigWinRMCertificateAuthPlugin').execute(ctx);
  assert.deepEqual(
    win.certificates.map((c) => c.store),
    ['Root', 'TrustedPeople'],
  );
  const runs = files.runs.map((r) => r.slice(3).join(' '));
  assert.deepEqual(runs, [
    'set winrm/config/service/auth @{Certificate="true"}',
    `delete winrm/config/service/certmapping?Issuer=${thumbprint}+Subject=admin@kiln.test+URI=*`,
    `create winrm/config/service/certmapping?Issuer=${thumbprint}+Subject=admin@kiln.test+URI=* @{Enabled="true";Password="Pa$$w0rd!";UserName="admin"}`,
  ]);
  files.onRun = (argv) => (argv[3] === 'create' ? { code: 1, stderr: `bad mapping for Pa$$w0rd!` } : {});
  await assert.rejects(
    plugin('ConfigWinRMCertificateAuthPlugin').execute(ctx),
    (e: Error) => /bad mapping for \*\*\*\*\*\*\*\*/.test(e.message) && !e.message.includes('Pa$$w0rd!'),
  );
  win.certificateUpns.clear();
  files.onRun = () => ({});
  const before = files.runs.length;
  await assert.rejects(plugin('ConfigWinRMCertificateAuthPlugin').execute(ctx), /has no UPN/);
  assert.equal(files.runs.length, before, 'nothing is configured for a certificate WinRM cannot map');
});

test('EphemeralDiskPlugin writes the data loss warning on the volume with that label; PageFilesPlugin finds volumes by label', async () => {
  const win = new FakeWindows();
  win.drives.push({ root: 'D:\\', label: 'Temporary Storage' });
  const { ctx, files } = context(
    'ephemeral_disk_volume_label=temporary storage\nephemeral_disk_data_loss_warning_path=DATALOSS_WARNING_README.txt\npage_file_volume_labels=Temporary Storage\n',
    {},
    win,
  );
  assert.deepEqual(await plugin('EphemeralDiskPlugin').execute(ctx), { status: 'done', reboot: false });
  assert.match(
    Buffer.from(
      files.files.get('d:\\dataloss_warning_readme.txt') ?? files.files.get('dataloss_warning_readme.txt') ?? [],
    ).toString(),
    /THIS IS A TEMPORARY DISK/,
  );
  assert.deepEqual(await plugin('PageFilesPlugin').execute(ctx), { status: 'done', reboot: true });
  assert.deepEqual(
    win.getValue('HKLM', 'SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management', 'PagingFiles'),
    { type: 'REG_MULTI_SZ', data: ['D:\\pagefile.sys 0 0'] },
  );
  const none = context('ephemeral_disk_volume_label=Nope\n');
  await assert.rejects(
    plugin('EphemeralDiskPlugin').execute(none.ctx),
    /no volume labelled 'Nope' \(volumes: C:\\ ''\)/,
  );
});

function adapter(
  win: FakeWindows,
  ifIndex: number,
  guid: string,
  opts: { dhcpv4?: boolean; up?: boolean; mtu?: number } = {},
) {
  win.adapters.push({
    ifIndex,
    luid: BigInt(ifIndex) << 32n,
    guid,
    mac: `fa:16:3e:00:00:0${ifIndex}`,
    friendlyName: `Ethernet ${ifIndex}`,
    description: 'virtio',
    mtu: opts.mtu ?? 1500,
    dhcpv4: opts.dhcpv4 ?? true,
    up: opts.up ?? true,
    unicast: [],
    dnsServers: [],
  });
}
function lease(win: FakeWindows, guid: string, option: number, data: number[]) {
  const l = win.dhcpLeases.get(guid.toLowerCase()) ?? new Map<number, Uint8Array>();
  l.set(option, Uint8Array.from(data));
  win.dhcpLeases.set(guid.toLowerCase(), l);
}

test('NTPClientPlugin: RealTimeIsUniversal as real_time_clock_utc (a change reboots), W32Time automatic with network triggers, peers from the first DHCP lease with option 42', async () => {
  const win = new FakeWindows();
  win.serviceStates.set('w32time', 1);
  adapter(win, 3, '{AAAA}', { dhcpv4: false });
  adapter(win, 4, '{BBBB}');
  adapter(win, 5, '{CCCC}');
  lease(win, '{AAAA}', 42, [192, 0, 2, 9]);
  lease(win, '{BBBB}', 42, [10, 0, 0, 1, 10, 0, 0, 2]);
  lease(win, '{CCCC}', 42, [10, 0, 0, 3]);
  const { ctx, files } = context('real_time_clock_utc=true\nntp_use_dhcp_config=true\n', {}, win);
  assert.equal(plugin('NTPClientPlugin').stage, 'pre-networking');
  assert.deepEqual(await plugin('NTPClientPlugin').execute(ctx), { status: 'done', reboot: true });
  assert.deepEqual(
    files.runs.map((r) => r.map((a) => a.replace(/^C:\\Windows\\System32\\/, '')).join(' ')),
    [
      'sc.exe config W32Time start= auto',
      'sc.exe triggerinfo w32time start/networkon stop/networkoff',
      'net.exe start W32Time',
      'w32tm.exe /config /manualpeerlist:10.0.0.1 10.0.0.2 /syncfromflags:manual /update',
    ],
  );
  assert.ok(!win.calls.includes('DhcpRequestParams {AAAA} 42'), 'static adapters are not asked');
  assert.ok(!win.calls.includes('DhcpRequestParams {CCCC} 42'), 'the first lease with servers wins');
  assert.deepEqual(
    win.getValue('HKLM', 'SYSTEM\\CurrentControlSet\\Control\\TimeZoneInformation', 'RealTimeIsUniversal'),
    { type: 'REG_DWORD', data: 1 },
  );
  assert.deepEqual(
    await plugin('NTPClientPlugin').execute(ctx),
    { status: 'done', reboot: false },
    'already UTC: no reboot',
  );
  const noLease = context('ntp_use_dhcp_config=true\n');
  noLease.win.serviceStates.set('w32time', 4);
  assert.deepEqual(
    await plugin('NTPClientPlugin').execute(noLease.ctx),
    { status: 'next-boot', reboot: false },
    'no lease with NTP servers: tried again',
  );
  assert.deepEqual(
    noLease.files.runs.map((r) => r[1]),
    ['config', 'triggerinfo'],
    'a running service is not started again; no w32tm',
  );
  await assert.rejects(plugin('NTPClientPlugin').execute(context('').ctx), /W32Time\) is not installed/);
});

test('MTUPlugin sets the IPv4 MTU of DHCP adapters from option 26; malformed, absent and static ones are left alone', async () => {
  const win = new FakeWindows();
  adapter(win, 3, '{AAAA}');
  adapter(win, 4, '{BBBB}', { mtu: 1450 });
  adapter(win, 5, '{CCCC}', { dhcpv4: false });
  adapter(win, 6, '{DDDD}');
  adapter(win, 7, '{EEEE}', { up: false });
  lease(win, '{AAAA}', 26, [0x05, 0xaa]);
  lease(win, '{BBBB}', 26, [0x05, 0xaa]);
  lease(win, '{CCCC}', 26, [0x05, 0xdc]);
  lease(win, '{DDDD}', 26, [0x05]);
  lease(win, '{EEEE}', 26, [0x05, 0xaa]);
  const { ctx, lines } = context('', {}, win);
  assert.deepEqual(
    await plugin('MTUPlugin').execute(ctx),
    { status: 'next-boot', reboot: false },
    'runs at every boot',
  );
  assert.equal(plugin('MTUPlugin').stage, 'pre-metadata-discovery');
  assert.deepEqual(
    win.calls.filter((c) => c.startsWith('SetIpInterfaceEntry')),
    ['SetIpInterfaceEntry 3 ipv4 mtu 1450'],
  );
  assert.deepEqual(
    win.calls.filter((c) => c.startsWith('DhcpRequestParams')),
    ['DhcpRequestParams {AAAA} 26', 'DhcpRequestParams {BBBB} 26', 'DhcpRequestParams {DDDD} 26'],
  );
  assert.match(lines.join('\n'), /Ethernet 6.*option 26 is malformed/);
  const off = context('mtu_use_dhcp_config=false\n', {}, win);
  win.calls.length = 0;
  await plugin('MTUPlugin').execute(off.ctx);
  assert.deepEqual(win.calls, [], 'mtu_use_dhcp_config=false: DHCP is not asked');
});

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

function disksForExtend(): FakeWindows {
  const win = new FakeWindows();
  // Disk 0 (GPT, 40 GiB usable): recovery, C: with 19 GiB free after it. Disk 1 (MBR, 10 GiB): D: then E: with no gap,
  // E: with 2 GiB free.
  win.disks.set(0, {
    style: 'gpt',
    usableEnd: 40 * GiB,
    partitions: [
      { number: 1, start: MiB, length: 499 * MiB },
      { number: 2, start: 500 * MiB, length: 20 * GiB - 500 * MiB },
    ],
  });
  win.disks.set(1, {
    style: 'mbr',
    usableEnd: 10 * GiB,
    partitions: [
      { number: 1, start: MiB, length: 4 * GiB - MiB },
      { number: 2, start: 4 * GiB, length: 4 * GiB },
    ],
  });
  win.fixedVolumes.push(
    { root: 'C:\\', device: '\\Device\\HarddiskVolume2', diskNumber: 0, start: 500 * MiB, bytesPerSector: 512 },
    { root: 'D:\\', device: '\\Device\\HarddiskVolume3', diskNumber: 1, start: MiB, bytesPerSector: 512 },
    { root: 'E:\\', device: '\\Device\\HarddiskVolume4', diskNumber: 1, start: 4 * GiB, bytesPerSector: 4096 },
  );
  return win;
}

test('ExtendVolumesPlugin grows every volume into the free space after its partition, then its file system; runs every boot', async () => {
  const win = disksForExtend();
  const { ctx } = context('', {}, win);
  assert.deepEqual(await plugin('ExtendVolumesPlugin').execute(ctx), { status: 'next-boot', reboot: false });
  assert.deepEqual(win.calls, [
    `IOCTL_DISK_GROW_PARTITION 0 2 ${20 * GiB}`,
    `FSCTL_EXTEND_VOLUME C:\\ ${(40 * GiB - 500 * MiB) / 512}`,
    `IOCTL_DISK_GROW_PARTITION 1 2 ${2 * GiB}`,
    `FSCTL_EXTEND_VOLUME E:\\ ${(6 * GiB) / 4096}`,
  ]);
  assert.equal(win.disks.get(0)?.partitions[1]?.length, 40 * GiB - 500 * MiB);
  assert.equal(win.disks.get(1)?.partitions[0]?.length, 4 * GiB - MiB, 'D: has E: right after it');
  win.calls.length = 0;
  await plugin('ExtendVolumesPlugin').execute(ctx);
  assert.deepEqual(win.calls, [], 'nothing left to grow at the next boot');
});

test('ExtendVolumesPlugin honours volumes_to_extend (HarddiskVolumeN) and reports failures', async () => {
  const win = disksForExtend();
  const { ctx } = context('volumes_to_extend=4\n', {}, win);
  await plugin('ExtendVolumesPlugin').execute(ctx);
  assert.deepEqual(win.calls, [
    `IOCTL_DISK_GROW_PARTITION 1 2 ${2 * GiB}`,
    `FSCTL_EXTEND_VOLUME E:\\ ${(6 * GiB) / 4096}`,
  ]);
  await assert.rejects(
    plugin('ExtendVolumesPlugin').execute(context('volumes_to_extend=C\n', {}, win).ctx),
    /'C' is not a volume index/,
  );
  const broken = disksForExtend();
  broken.disks.delete(1);
  await assert.rejects(
    plugin('ExtendVolumesPlugin').execute(context('', {}, broken).ctx),
    /D:\\: CreateFileW .*PhysicalDrive1/,
  );
  assert.ok(broken.calls.includes(`IOCTL_DISK_GROW_PARTITION 0 2 ${20 * GiB}`), 'the other volumes are still extended');
});

test('ServerCertificatesPlugin imports each PFX of the metadata: keyed certificates to their store, the chain to CA; bad ones fail with the index', async () => {
  const pfx = (password: string, certs: Array<{ der: string; key: boolean }>) =>
    Uint8Array.from(Buffer.from(JSON.stringify({ password, certs })));
  const { ctx, win, lines } = context('', {
    serverCertificates: [
      {
        storeLocation: 'LocalMachine',
        storeName: 'My',
        pfx: pfx('', [
          { der: 'AQID', key: true },
          { der: 'BAUG', key: false },
        ]),
      },
      {
        storeLocation: 'CurrentUser',
        storeName: 'TrustedPeople',
        pfx: pfx('pfx-Pa55', [{ der: 'BwgJ', key: true }]),
        password: 'pfx-Pa55',
      },
    ],
  });
  assert.deepEqual(await plugin('ServerCertificatesPlugin').execute(ctx), { status: 'done', reboot: false });
  assert.deepEqual(
    win.certificates.map((c) => c.store),
    ['My', 'CA', 'TrustedPeople'],
  );
  assert.deepEqual(
    win.calls.filter((c) => c.startsWith('PFXImportCertStore')),
    ['PFXImportCertStore machine', 'PFXImportCertStore user'],
  );
  assert.ok(!lines.join('\n').includes('pfx-Pa55'));
  const bad = context('', {
    serverCertificates: [{ storeLocation: 'LocalMachine', storeName: 'My', pfx: pfx('right', []), password: 'wrong' }],
  });
  await assert.rejects(
    plugin('ServerCertificatesPlugin').execute(bad.ctx),
    /server certificate 0 for LocalMachine\\My: .*password is not correct/,
  );
  const none = context('');
  assert.deepEqual(await plugin('ServerCertificatesPlugin').execute(none.ctx), { status: 'done', reboot: false });
  assert.equal(none.win.calls.length, 0);
});

test('RDPPostCertificateThumbprintPlugin posts the configured RDP certificate, else the newest in Remote Desktop; services that cannot take it are skipped', async () => {
  const posted: string[] = [];
  const { ctx, win } = context('');
  ctx.service = { classPath: 'test.Service', postRdpCertificateThumbprint: async (t: string) => void posted.push(t) };
  win.certificates.push(
    { subject: 'old', store: 'Remote Desktop', thumbprint: 'A'.repeat(40) },
    { subject: 'new', store: 'Remote Desktop', thumbprint: 'B'.repeat(40) },
  );
  await plugin('RDPPostCertificateThumbprintPlugin').execute(ctx);
  win.setValue(
    'HKLM',
    'SYSTEM\\CurrentControlSet\\Control\\Terminal Server\\WinStations\\RDP-Tcp',
    'SSLCertificateSHA1Hash',
    { type: 'REG_BINARY', data: Uint8Array.from(Buffer.alloc(20, 0xc1)) },
  );
  await plugin('RDPPostCertificateThumbprintPlugin').execute(ctx);
  assert.deepEqual(posted, ['B'.repeat(40), 'C1'.repeat(20)]);
  const none = context('');
  none.ctx.service = { classPath: 'test.Service', postRdpCertificateThumbprint: async () => undefined };
  await assert.rejects(plugin('RDPPostCertificateThumbprintPlugin').execute(none.ctx), /no RDP certificate/);
  const cannot = context('');
  cannot.ctx.service = { classPath: 'cloudbaseinit.metadata.services.configdrive.ConfigDriveService' };
  assert.deepEqual(await plugin('RDPPostCertificateThumbprintPlugin').execute(cannot.ctx), {
    status: 'done',
    reboot: false,
  });
  assert.match(cannot.lines.join('\n'), /ConfigDriveService\) does not take the RDP certificate thumbprint/);
});

test('WindowsLicensingPlugin installs the published KMS or AVMA key for the build and EditionID; evaluation and unknown editions are handled', async () => {
  const setEdition = (win: FakeWindows, build: string, edition: string) => {
    win.setValue('HKLM', 'SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion', 'CurrentBuildNumber', {
      type: 'REG_SZ',
      data: build,
    });
    win.setValue('HKLM', 'SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion', 'EditionID', {
      type: 'REG_SZ',
      data: edition,
    });
  };
  const runs = async (conf: string, build: string, edition: string) => {
    const c = context(`${conf}\nlog_licensing_info=false\n`);
    setEdition(c.win, build, edition);
    await plugin('WindowsLicensingPlugin').execute(c.ctx);
    return c.files.runs.map((r) =>
      r
        .slice(2)
        .join(' ')
        .replace(/^C:\\Windows\\System32\\/, ''),
    );
  };
  assert.deepEqual(await runs('set_kms_product_key=true', '20348', 'ServerDatacenter'), [
    'slmgr.vbs /ipk WX4NM-KYWYW-QJJR4-XV3QB-6VM33',
  ]);
  assert.deepEqual(await runs('set_kms_product_key=true', '17763', 'ServerStandard'), [
    'slmgr.vbs /ipk N69G4-B89J2-4G8F4-WWYCC-J464C',
  ]);
  assert.deepEqual(await runs('set_kms_product_key=true', '22631', 'Professional'), [
    'slmgr.vbs /ipk W269N-WFGWX-YVC9B-4J6C9-T83GX',
  ]);
  assert.deepEqual(await runs('set_kms_product_key=true', '19044', 'EnterpriseS'), [
    'slmgr.vbs /ipk M7XTQ-FN8P6-TTKYV-9D4CC-J462D',
  ]);
  assert.deepEqual(await runs('set_avma_product_key=true', '14393', 'ServerStandard'), [
    'slmgr.vbs /ipk C3RCX-M6NRP-6CXC9-TW2F2-4RHYD',
  ]);
  assert.deepEqual(await runs('set_kms_product_key=true', '20348', 'ServerDatacenterEval'), []);
  await assert.rejects(
    runs('set_avma_product_key=true', '26100', 'ServerDatacenter'),
    /no published AVMA key for build 26100 edition 'ServerDatacenter'/,
  );
});

test('BCDConfigPlugin: one boot-and-system volume gets {current} on the boot device and a new disk id; otherwise the id is left alone', async () => {
  const win = disksForExtend();
  win.setValue('HKLM', 'SYSTEM\\Setup', 'SystemPartition', { type: 'REG_SZ', data: '\\Device\\HarddiskVolume2' });
  const { ctx, files } = context('set_unique_boot_disk_id=true\n', {}, win);
  ctx.env = { ...ctx.env, SystemDrive: 'C:' };
  await plugin('BCDConfigPlugin').execute(ctx);
  assert.deepEqual(
    files.runs.map((r) => r.slice(1).join(' ')),
    ['/set {current} device boot', '/set {current} osdevice boot', '/set {current} recoveryenabled No'],
  );
  assert.ok(win.calls.includes('IOCTL_DISK_SET_DRIVE_LAYOUT_EX 0'));
  assert.match(win.diskIds.get(0) ?? '', /^[0-9a-f]{32}$/, 'disk 0 is GPT: a 16-byte GUID');
  const first = win.diskIds.get(0);
  await plugin('BCDConfigPlugin').execute(ctx);
  assert.notEqual(win.diskIds.get(0), first, 'a fresh id each time');

  const separate = disksForExtend();
  separate.setValue('HKLM', 'SYSTEM\\Setup', 'SystemPartition', { type: 'REG_SZ', data: '\\Device\\HarddiskVolume1' });
  const s = context('', {}, separate);
  await plugin('BCDConfigPlugin').execute(s.ctx);
  assert.deepEqual(
    s.files.runs.map((r) => r.slice(1).join(' ')),
    ['/set {current} recoveryenabled No'],
  );
  assert.equal(separate.diskIds.size, 0);
  assert.match(s.lines.join('\n'), /is not also the system volume/);
});
