// The built kiln-win-x64.exe as cloudbase-init under wine: config drive on a drive letter, plugins, registry state,
// user data 1001/1002.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { installCommandLineLoggers, loggedCommandLines } from '../helpers/command-line-logger';
import { makeLab } from '../helpers/netns-lab';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import {
  keepWineSession,
  markerBatch,
  markerLines,
  privateWinePrefix,
  runUnderWine,
  startServiceAndWait,
  wineExe,
  wineRegQuery,
  writeCloudbaseInitConf,
} from '../helpers/wine';

const PLUGINS_KEY = 'HKLM\\SOFTWARE\\Cloudbase Solutions\\Cloudbase-Init';

function writeConfigDrive(drive: string, instanceId: string, userData: string, meta?: Record<string, string>): void {
  mkdirSync(join(drive, 'openstack', 'latest'), { recursive: true });
  writeFileSync(join(drive, '.windows-label'), 'config-2\n');
  writeFileSync(
    join(drive, 'openstack', 'latest', 'meta_data.json'),
    JSON.stringify({
      uuid: instanceId,
      hostname: 'kiln-e2e-wine-host-name.example.org',
      name: 'e2e',
      ...(meta ? { meta } : {}),
    }),
  );
  writeFileSync(join(drive, 'openstack', 'latest', 'user_data'), userData);
}

test('cloudbase-init under wine: config drive Q: labelled config-2, SetHostName, CreateUser, UserData 1002 then 1001, registry state honoured', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const drive = join(dir, 'config-drive');
  const marker = join(dir, 'ran.txt');
  const script = (code: number) => markerBatch(marker, `ran ${code}`, code);
  writeConfigDrive(drive, 'kiln-e2e-1', script(1002));
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  const conf = writeCloudbaseInitConf(
    dir,
    [
      'username=kilne2e',
      'groups=Administrators',
      'inject_user_password=true',
      'metadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService',
      'plugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.windows.createuser.CreateUserPlugin,cloudbaseinit.plugins.common.userdata.UserDataPlugin',
      'an_option_kiln_does_not_know=1',
    ],
    ['[config_drive]', 'types=iso', 'locations=cdrom'],
  );
  // Synchronously, not through runCloudbaseInit: when this test ran the exe asynchronously, the NoCloud test after it
  // found wine's default computer name instead of the one it set (twice in two full runs of this file; not understood).
  const run = () =>
    runUnderWine(exe, ['--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  const ranLines = () => markerLines(marker);

  // First boot: every plugin runs; the user-data script asks (1002) to run again.
  let r = run();
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.configdrive\.ConfigDriveService \(ConfigDrive\), instance kiln-e2e-1$/m,
  );
  assert.match(r.stdout, /SetHostNamePlugin\s+done \(reboot\)/);
  assert.match(r.stdout, /CreateUserPlugin\s+done/);
  assert.match(r.stdout, /UserDataPlugin\s+next-boot/);
  assert.match(r.stdout, /a reboot was asked for but allow_reboot is false/);
  assert.match(r.stderr, /unknown option 'an_option_kiln_does_not_know' in \[DEFAULT\]/);
  assert.deepEqual(ranLines(), ['ran 1002']);
  const state = `${PLUGINS_KEY}\\kiln-e2e-1\\Plugins`;
  assert.equal(wineRegQuery(prefix, state, 'SetHostNamePlugin'), 'REG_DWORD 0x1');
  assert.equal(wineRegQuery(prefix, state, 'CreateUserPlugin'), 'REG_DWORD 0x1');
  assert.equal(wineRegQuery(prefix, state, 'UserDataPlugin'), 'REG_DWORD 0x2');
  // The NetBIOS rules: domain dropped, 15 characters.
  assert.equal(
    wineRegQuery(prefix, 'HKLM\\System\\CurrentControlSet\\Control\\ComputerName\\ComputerName', 'ComputerName'),
    'REG_SZ KILN-E2E-WINE-H',
  );
  const log = readFileSync(join(dir, 'cloudbase-init.log'), 'utf8');
  assert.match(log, /Creating user kilne2e/);
  assert.match(log, /Added user kilne2e to local group Administrators/);
  // wine's LookupAccountNameW does not see the account, so no ProfileList entry is found and the profile is loaded:
  // LogonUserW + LoadUserProfileW.
  assert.match(log, /Loading the profile of kilne2e/);
  assert.match(log, /Script user-data ended with return code: 1002/);

  // Second boot: done plugins are skipped; the user data runs again as 1002 asked.
  r = run();
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /SetHostNamePlugin\s+already-done/);
  assert.match(r.stdout, /CreateUserPlugin\s+already-done/);
  assert.match(r.stdout, /UserDataPlugin\s+next-boot/);
  assert.deepEqual(ranLines(), ['ran 1002', 'ran 1002']);

  // A new instance whose script exits 1001: run once, marked done, reboot asked; never run again.
  writeConfigDrive(drive, 'kiln-e2e-2', script(1001));
  r = run();
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /UserDataPlugin\s+done \(reboot\)/);
  assert.equal(wineRegQuery(prefix, `${PLUGINS_KEY}\\kiln-e2e-2\\Plugins`, 'UserDataPlugin'), 'REG_DWORD 0x1');
  r = run();
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /UserDataPlugin\s+already-done/);
  assert.deepEqual(ranLines(), ['ran 1002', 'ran 1002', 'ran 1001']);
});

test("UserDataPlugin under wine: Heat parts written under heat_config_dir and cfn-userdata run through cmd.exe, EC2 blocks' exit codes added up; the log where oslo.log puts a lone logfile", (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const drive = join(dir, 'config-drive');
  const marker = join(dir, 'ran.txt');
  const heatDir = join(dir, 'cfn');
  const part = (type: string, name: string, body: string) => [
    '--XX',
    `Content-Type: ${type}`,
    `Content-Disposition: attachment; filename="${name}"`,
    '',
    body,
  ];
  const mime = [
    'Content-Type: multipart/mixed; boundary="XX"',
    'MIME-Version: 1.0',
    '',
    ...part('text/x-cfninitdata', 'cfn-init-data', '{"AWS::CloudFormation::Init": {}}'),
    ...part('text/x-cfninitdata', 'cfn-userdata', markerBatch(marker, 'heat', 1002)),
    '--XX--',
    '',
  ].join('\n');
  writeConfigDrive(drive, 'kiln-e2e-heat', mime);
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  const conf = join(dir, 'c.conf');
  const text = (logName: string) =>
    [
      '[DEFAULT]',
      'metadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService',
      'plugins=cloudbaseinit.plugins.common.userdata.UserDataPlugin',
      'allow_reboot=false',
      `heat_config_dir=Z:${heatDir.replace(/\//g, '\\')}`,
      // oslo.log's deprecated name, and no log_dir: the file is the path given, as oslo.log's _get_log_file_path.
      `logfile=Z:${join(dir, logName).replace(/\//g, '\\')}`,
      '[Config_Drive]',
      'types=iso',
      'locations=cdrom',
      '',
    ].join('\r\n');
  writeFileSync(conf, text('heat.log'));
  let r = runUnderWine(exe, ['--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(
    r.stdout,
    /UserDataPlugin\s+next-boot/,
    "cfn-userdata's 1002 is the part's, and the last part's, result",
  );
  assert.equal(readFileSync(join(heatDir, 'cfn-init-data'), 'utf8'), '{"AWS::CloudFormation::Init": {}}');
  assert.match(readFileSync(join(heatDir, 'cfn-userdata'), 'utf8'), /^rem cmd/);
  assert.deepEqual(markerLines(marker), ['heat']);
  assert.doesNotMatch(r.stderr, /unknown option/);
  assert.match(readFileSync(join(dir, 'heat.log'), 'utf8'), /Heat part written to Z:.*cfn-userdata/);

  // EC2 blocks of a new instance: two <script> blocks exiting 1 and 1000: both run, and 1 + 1000 = 1001 asks for a
  // reboot.
  const block = (line: string, code: number) =>
    `<script>echo ${line}>> Z:${marker.replace(/\//g, '\\')}\r\nexit ${code}</script>`;
  writeConfigDrive(drive, 'kiln-e2e-ec2', `${block('one', 1)}\n${block('two', 1000)}\n`);
  writeFileSync(conf, text('ec2.log'));
  r = runUnderWine(exe, ['--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.deepEqual(markerLines(marker), ['heat', 'one', 'two']);
  assert.match(r.stdout, /UserDataPlugin\s+done \(reboot\)/);
  assert.match(readFileSync(join(dir, 'ec2.log'), 'utf8'), /summed return code: 1001/);
});

test('cloudbase-init under wine without a config drive: a clear error, MAIN not run', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const prefix = privateWinePrefix(dir, {}, []);
  const conf = join(dir, 'c.conf');
  writeFileSync(
    conf,
    // PacketService's URL is a closed port on 127.0.0.1: the test never reaches metadata.packet.net.
    '[DEFAULT]\nretry_count=0\nmetadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService,cloudbaseinit.metadata.services.packet.PacketService\nplugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin\n[config_drive]\ntypes=iso\nlocations=cdrom\n[packet]\nmetadata_base_url=http://127.0.0.1:9/\n',
  );
  const r = runUnderWine(exe, ['--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  assert.equal(r.code, 0, 'the flow ran: exit 0 whatever failed, as cloudbase-init');
  assert.match(
    r.stdout,
    /error: No available metadata service found \(tried ConfigDriveService, PacketService\); MAIN plugins not run/,
  );
});

test('NoCloudConfigDriveService and EmptyMetadataService under wine: a cidata drive on Q: names the instance and host; the empty service is a last resort', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const drive = join(dir, 'cidata');
  mkdirSync(drive, { recursive: true });
  writeFileSync(join(drive, '.windows-label'), 'cidata\n');
  writeFileSync(join(drive, 'meta-data'), 'instance-id: kiln-e2e-nocloud\nlocal-hostname: nocloud-wine\n');
  writeFileSync(join(drive, 'user-data'), '');
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  const services = ['nocloudservice.NoCloudConfigDriveService', 'base.EmptyMetadataService']
    .map((s) => `cloudbaseinit.metadata.services.${s}`)
    .join(',');
  const conf = join(dir, 'c.conf');
  writeFileSync(
    conf,
    `[DEFAULT]\nmetadata_services=${services}\nplugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin\nallow_reboot=false\n[config_drive]\ntypes=iso\nlocations=cdrom\n`,
  );
  let r = runUnderWine(exe, ['--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.nocloudservice\.NoCloudConfigDriveService \(NoCloud\), instance kiln-e2e-nocloud$/m,
  );
  assert.equal(
    wineRegQuery(prefix, 'HKLM\\System\\CurrentControlSet\\Control\\ComputerName\\ComputerName', 'ComputerName'),
    'REG_SZ NOCLOUD-WINE',
  );
  // A machine without the drive: the empty service answers, and MAIN runs with no metadata to apply.
  const bare = privateWinePrefix(join(dir, 'bare'), {}, []);
  r = runUnderWine(exe, ['--config-file', `Z:${conf}`], { WINEPREFIX: bare, KILN_FACE: 'cloudbase-init' });
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.base\.EmptyMetadataService \(None\)/m,
    `${r.stdout}\n${r.stderr}`,
  );
});

test('kiln service install|uninstall under wine: LocalSystem, dependencies, and a start by the service control manager runs the flow', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const drive = join(dir, 'config-drive');
  writeConfigDrive(drive, 'kiln-e2e-service', 'rem cmd\r\nexit 0\r\n');
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  // wine's services.exe gives a starting service 10 s to connect (Windows: 30 s); Node under wine on a busy
  // machine can need more, so the prefix gets a longer ServicesPipeTimeout (milliseconds).
  appendFileSync(
    join(prefix, 'system.reg'),
    '\n[System\\\\CurrentControlSet\\\\Control] 1700000000\n"ServicesPipeTimeout"=dword:0001d4c0\n',
  );
  const conf = join(dir, 'cloudbase-init.conf');
  writeFileSync(
    conf,
    `[DEFAULT]\nmetadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService\nplugins=cloudbaseinit.plugins.common.userdata.UserDataPlugin\nallow_reboot=false\nlog_dir=Z:${dir}\nlog_file=service.log\n[config_drive]\ntypes=iso\nlocations=cdrom\n`,
  );
  const env = { WINEPREFIX: prefix };
  const wine = (args: string[]) =>
    spawnSync('wine', args, { env: { ...process.env, ...env, WINEDEBUG: '-all' }, encoding: 'utf8', timeout: 120_000 });

  let r = runUnderWine(
    exe,
    ['service', 'install', '--start', 'demand', '--depend', 'RpcSs', '--config-file', `Z:${conf}`],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  const key = 'HKLM\\System\\CurrentControlSet\\Services\\cloudbase-init';
  assert.equal(wineRegQuery(prefix, key, 'ObjectName'), 'REG_SZ LocalSystem');
  assert.equal(wineRegQuery(prefix, key, 'Start'), 'REG_DWORD 0x3');
  assert.equal(wineRegQuery(prefix, key, 'DependOnService'), 'REG_MULTI_SZ RpcSs');
  assert.match(wineRegQuery(prefix, key, 'ImagePath') ?? '', /kiln-win-x64\.exe service run --config-file Z:/);
  r = runUnderWine(exe, ['service', 'install', '--config-file', `Z:${conf}`], env);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /CreateServiceW 'cloudbase-init' failed: .*\(error 1073\)/);

  keepWineSession(t, env);
  const { started, state } = startServiceAndWait(wine, 'cloudbase-init', 200);
  assert.ok(state, `the service did not stop: ${started}`);
  assert.match(state, /WIN32_EXIT_CODE\s+:\s+0/);
  assert.equal(wineRegQuery(prefix, `${PLUGINS_KEY}\\kiln-e2e-service\\Plugins`, 'UserDataPlugin'), 'REG_DWORD 0x1');
  const serviceLog = readFileSync(join(dir, 'service.log'), 'utf8');
  assert.match(serviceLog, /Script user-data ended with return code: 0/);
  // The order the 30 s of the service control manager depends on: connected first, the flow after (how long it took is
  // measured by test/bench/windows-service-start.bench.ts, not asserted here).
  const lines = serviceLog.split(/\r?\n/).filter(Boolean);
  assert.match(
    lines[0] ?? '',
    /service\.ts\[INFO\]: StartServiceCtrlDispatcherW called \d+ ms after the process started$/,
    serviceLog,
  );
  assert.ok(lines.length > 1);

  r = runUnderWine(exe, ['service', 'uninstall'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(wineRegQuery(prefix, key, 'ImagePath'), undefined);
  r = runUnderWine(exe, ['--debug', 'service', 'run', '--config-file', `Z:${conf}`], env);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /cannot connect to the service control manager as 'cloudbase-init'/);
  // Started by hand: the dispatcher is reached, and nothing of the flow ran before it (nor after: it never connected).
  assert.match(
    r.stderr,
    /^[^\n]*service\.ts\[DEBUG\]: StartServiceCtrlDispatcherW called \d+ ms after the process started$/m,
  );
  assert.doesNotMatch(r.stderr, /init\.py|configdrive\.py/);
  spawnSync('wineserver', ['-k'], { env: { ...process.env, WINEPREFIX: prefix } });
});

test('NetworkConfigPlugin under wine reads the adapters through GetAdaptersAddresses and changes nothing for a MAC that is not here', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const drive = join(dir, 'config-drive');
  writeConfigDrive(drive, 'kiln-e2e-net', '');
  // A locally administered MAC no host adapter has: the plugin must stop before any IP Helper write.
  writeFileSync(
    join(drive, 'openstack', 'latest', 'network_data.json'),
    JSON.stringify({
      links: [{ id: 'tap1', type: 'phy', ethernet_mac_address: '02:00:5e:00:53:99' }],
      networks: [{ id: 'n4', type: 'ipv4', link: 'tap1', ip_address: '192.0.2.77', netmask: '255.255.255.0' }],
      services: [],
    }),
  );
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  const conf = join(dir, 'c.conf');
  writeFileSync(
    conf,
    '[DEFAULT]\nmetadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService\nplugins=cloudbaseinit.plugins.common.networkconfig.NetworkConfigPlugin\nallow_reboot=false\n[config_drive]\ntypes=iso\nlocations=cdrom\n',
  );
  const r = runUnderWine(exe, ['--debug', '--config-file', `Z:${conf}`], {
    WINEPREFIX: prefix,
    KILN_FACE: 'cloudbase-init',
  });
  assert.equal(r.code, 0, 'the flow ran: exit 0 whatever failed, as cloudbase-init');
  assert.match(r.stderr, /Adapter \d+ '[^']+' \(no MAC\) \{[0-9A-Fa-f-]+\} mtu \d+ static .*127\.0\.0\.1\/8/);
  assert.match(r.stdout, /NetworkConfigPlugin\s+failed: .*no interface on this machine has MAC 02:00:5e:00:53:99/);
  assert.equal(wineRegQuery(prefix, `${PLUGINS_KEY}\\kiln-e2e-net\\Plugins`, 'NetworkConfigPlugin'), undefined);
});

test('NetworkConfigPlugin under wine: the static IPv4 address with DHCP off, DNS and an extra route reach the registry where Windows reads them at boot', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  if (!need(t, isRoot() && hasCommand('ip'), 'needs root and ip (iproute2) for a network namespace of its own')) return;
  // wine runs in a namespace of the test's own, whose eth0 (a veth) is the adapter configured: the host's interfaces
  // are neither listed nor touched, whatever wine's iphlpapi and netsh come to implement.
  const mac = '02:00:5e:00:53:42';
  const lab = makeLab(t, { mac, dhcp: false });
  const dir = tempDir(t);
  const drive = join(dir, 'config-drive');
  writeConfigDrive(drive, 'kiln-e2e-net-static', '');
  writeFileSync(
    join(drive, 'openstack', 'latest', 'network_data.json'),
    JSON.stringify({
      links: [{ id: 'tap1', type: 'phy', ethernet_mac_address: mac }],
      networks: [
        {
          id: 'n4',
          type: 'ipv4',
          link: 'tap1',
          ip_address: '192.0.2.77',
          netmask: '255.255.255.0',
          routes: [
            { network: '0.0.0.0', netmask: '0.0.0.0', gateway: '192.0.2.1' },
            { network: '198.51.100.0', netmask: '255.255.255.0', gateway: '192.0.2.254' },
          ],
        },
        { id: 'n6', type: 'ipv6', link: 'tap1', ip_address: '2001:db8::77/64' },
      ],
      services: [
        { type: 'dns', address: '192.0.2.53' },
        { type: 'dns', address: '2001:db8::53' },
      ],
    }),
  );
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  const conf = join(dir, 'c.conf');
  writeFileSync(
    conf,
    '[DEFAULT]\nmetadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService\nplugins=cloudbaseinit.plugins.common.networkconfig.NetworkConfigPlugin\nallow_reboot=false\n[config_drive]\ntypes=iso\nlocations=cdrom\n',
  );
  const r = runUnderWine(
    exe,
    ['--debug', '--config-file', `Z:${conf}`],
    { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' },
    180_000,
    lab.client,
  );
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const guid = new RegExp(`Adapter \\d+ '[^']*' ${mac} (\\{[0-9A-Fa-f-]+\\})`).exec(r.stderr)?.[1];
  assert.ok(guid, `wine lists the adapter with MAC ${mac}:\n${r.stderr}`);
  // The persistent state is written first; the live part then stops where wine's iphlpapi ends.
  assert.match(r.stdout, /NetworkConfigPlugin\s+failed: .*iphlpapi\.dll has no InitializeUnicastIpAddressEntry/);
  const iface = `HKLM\\SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\Interfaces\\${guid}`;
  assert.equal(wineRegQuery(prefix, iface, 'EnableDHCP'), 'REG_DWORD 0x0');
  assert.equal(wineRegQuery(prefix, iface, 'IPAddress'), 'REG_MULTI_SZ 192.0.2.77');
  assert.equal(wineRegQuery(prefix, iface, 'SubnetMask'), 'REG_MULTI_SZ 255.255.255.0');
  assert.equal(wineRegQuery(prefix, iface, 'DefaultGateway'), 'REG_MULTI_SZ 192.0.2.1');
  assert.equal(wineRegQuery(prefix, iface, 'NameServer'), 'REG_SZ 192.0.2.53');
  assert.equal(
    wineRegQuery(
      prefix,
      `HKLM\\SYSTEM\\CurrentControlSet\\Services\\Tcpip6\\Parameters\\Interfaces\\${guid}`,
      'NameServer',
    ),
    'REG_SZ 2001:db8::53',
  );
  assert.equal(
    wineRegQuery(
      prefix,
      'HKLM\\SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\PersistentRoutes',
      '198.51.100.0,255.255.255.0,192.0.2.254,1',
    )?.trim(),
    'REG_SZ',
    "route -p's record of the extra route",
  );
});

test('ConfigWinRMListenerPlugin under wine: without a WinRM service nothing is made; a run that fails leaves no certificate; winrm.vbs gets @{Key="value"} as winrm.cmd writes it', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const drive = join(dir, 'config-drive');
  writeConfigDrive(drive, 'kiln-e2e-winrm', '');
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  const conf = join(dir, 'c.conf');
  writeFileSync(
    conf,
    '[DEFAULT]\nmetadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService\nplugins=cloudbaseinit.plugins.windows.winrmlistener.ConfigWinRMListenerPlugin\nallow_reboot=false\n[config_drive]\ntypes=iso\nlocations=cdrom\n',
  );
  const wineEnv = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' };
  const certificates = () =>
    spawnSync('wine', ['reg', 'query', 'HKLM\\Software\\Microsoft\\SystemCertificates\\MY\\Certificates'], {
      env: wineEnv,
      encoding: 'utf8',
    }).stdout ?? '';
  const run = (extra: string[] = []) =>
    runUnderWine(exe, [...extra, '--debug', '--config-file', `Z:${conf}`], {
      WINEPREFIX: prefix,
      KILN_FACE: 'cloudbase-init',
    });
  // Wine has no WinRM: as cloudbase-init, a warning, no certificate, and the plugin runs again at the next boot.
  let r = run();
  assert.equal(r.code, 0, 'the flow ran: exit 0 whatever failed, as cloudbase-init');
  assert.match(r.stdout, /ConfigWinRMListenerPlugin\s+next-boot/);
  assert.match(r.stderr, /Cannot configure the WinRM listener as the service is not available/);
  assert.doesNotMatch(r.stderr, /Created a self-signed certificate/);
  const before = certificates();
  // A stand-in WinRM service (cmd.exe, which cannot start as one): wine's sc.exe refuses `config … start= auto`, the
  // plugin fails and runs again at the next boot, and no certificate is left behind by the failed run.
  const created = spawnSync('wine', ['sc', 'create', 'WinRM', 'binPath=', 'C:\\windows\\system32\\cmd.exe'], {
    env: wineEnv,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(created.status, 0, `${created.stdout}${created.stderr}`);
  spawnSync('wineserver', ['-w'], { env: wineEnv, timeout: 60_000 });
  r = run();
  assert.match(
    r.stdout,
    /ConfigWinRMListenerPlugin\s+failed: command 'C:\\Windows\\System32\\sc\.exe config WinRM start= auto' exited with code 1/,
  );
  assert.equal(certificates(), before, 'no certificate made before the service started');

  // The system tools as loggers of their raw command line (--root puts System32 in the sandbox): sc and net succeed,
  // the certificate is made through crypt32, and cscript receives what `winrm create … @{…}` typed in cmd gives it.
  const system32 = join(dir, 'root', 'Windows', 'System32');
  if (!installCommandLineLoggers(t, system32, ['cscript.exe', 'sc.exe', 'net.exe', 'netsh.exe'])) return;
  writeFileSync(join(system32, 'winrm.vbs'), "' stand-in\r\n");
  r = run(['--root', `Z:${join(dir, 'root')}`]);
  assert.match(r.stdout, /ConfigWinRMListenerPlugin\s+done/, r.stdout + r.stderr);
  const thumbprint = /Created a self-signed certificate for CN=\S+ in LocalMachine\\My: ([0-9A-F]{40})/.exec(
    r.stderr,
  )?.[1];
  assert.ok(thumbprint, r.stderr);
  assert.doesNotMatch(before, new RegExp(thumbprint));
  assert.match(certificates(), new RegExp(`Certificates\\\\${thumbprint}`));
  const host = /CN=(\S+) in LocalMachine/.exec(r.stderr)?.[1] ?? '';
  const bin = `Z:${system32.replace(/\//g, '\\')}\\`;
  const listener = 'winrm/config/Listener?Address=*+Transport=HTTPS';
  assert.deepEqual(loggedCommandLines(system32), [
    `${bin}sc.exe config WinRM start= auto`,
    `${bin}net.exe start WinRM`,
    `${bin}cscript.exe //NoLogo ${bin}winrm.vbs get ${listener}`,
    `${bin}cscript.exe //NoLogo ${bin}winrm.vbs delete ${listener}`,
    `${bin}cscript.exe //NoLogo ${bin}winrm.vbs create ${listener} @{Hostname="${host}";CertificateThumbprint="${thumbprint}"}`,
    `${bin}netsh.exe advfirewall firewall delete rule "name=WinRM HTTPS"`,
    `${bin}netsh.exe advfirewall firewall add rule "name=WinRM HTTPS" dir=in action=allow protocol=TCP localport=5986`,
    `${bin}cscript.exe //NoLogo ${bin}winrm.vbs set winrm/config/service/auth @{Basic="true"}`,
  ]);
});

test('ConfigWinRMCertificateAuthPlugin under wine: the admin_cert0.. client certificate is trusted in Root and TrustedPeople with its UPN read', (t) => {
  const exe = wineExe(t);
  if (!exe || !need(t, hasCommand('openssl'), 'openssl is not installed')) return;
  const dir = tempDir(t);
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'k.pem'),
      '-out',
      join(dir, 'c.pem'),
      '-days',
      '30',
      '-subj',
      '/CN=kilne2e',
      '-addext',
      'subjectAltName=otherName:1.3.6.1.4.1.311.20.2.3;UTF8:kilne2e@kiln.test',
    ],
    { encoding: 'utf8' },
  );
  assert.equal(made.status, 0, made.stderr);
  const pem = readFileSync(join(dir, 'c.pem'), 'utf8');
  const thumbprint = spawnSync('openssl', ['x509', '-in', join(dir, 'c.pem'), '-noout', '-fingerprint', '-sha1'], {
    encoding: 'utf8',
  })
    .stdout.replace(/^.*=/, '')
    .replace(/:/g, '')
    .trim();
  // OpenStack metadata values are short: the certificate comes in 255-character pieces.
  const meta: Record<string, string> = {};
  for (let i = 0; i * 255 < pem.length; i++) meta[`admin_cert${i}`] = pem.slice(i * 255, (i + 1) * 255);
  const drive = join(dir, 'config-drive');
  writeConfigDrive(drive, 'kiln-e2e-certauth', '', meta);
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  const conf = join(dir, 'c.conf');
  writeFileSync(
    conf,
    '[DEFAULT]\nusername=kilne2e\nmetadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService\nplugins=cloudbaseinit.plugins.windows.createuser.CreateUserPlugin,cloudbaseinit.plugins.windows.winrmcertificateauth.ConfigWinRMCertificateAuthPlugin\nallow_reboot=false\n[config_drive]\ntypes=iso\nlocations=cdrom\n',
  );
  const r = runUnderWine(exe, ['--debug', '--config-file', `Z:${conf}`], {
    WINEPREFIX: prefix,
    KILN_FACE: 'cloudbase-init',
  });
  assert.equal(r.code, 0, 'the flow ran: exit 0 whatever failed, as cloudbase-init');
  assert.match(r.stderr, new RegExp(`Imported certificate ${thumbprint} into LocalMachine\\\\Root`));
  assert.match(r.stderr, new RegExp(`Imported certificate ${thumbprint} into LocalMachine\\\\TrustedPeople`));
  // Past the UPN check (CertGetNameStringW found kilne2e@kiln.test); wine has no WinRM to take the mapping.
  assert.match(
    r.stdout,
    /ConfigWinRMCertificateAuthPlugin\s+failed: .*WinRM is not installed on this Windows \(no System32\\winrm\.vbs\); the certificates are trusted but not mapped/,
  );
  const q = (store: string) =>
    spawnSync('wine', ['reg', 'query', `HKLM\\Software\\Microsoft\\SystemCertificates\\${store}\\Certificates`], {
      env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' },
      encoding: 'utf8',
    }).stdout;
  assert.match(q('ROOT'), new RegExp(thumbprint));
  assert.match(q('TrustedPeople'), new RegExp(thumbprint));
});

test('EphemeralDiskPlugin under wine: the drive labelled "Temporary Storage" (GetVolumeInformationW) gets the data loss warning', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const drive = join(dir, 'config-drive');
  writeConfigDrive(drive, 'kiln-e2e-ephemeral', '');
  const temp = join(dir, 'temporary');
  mkdirSync(temp);
  writeFileSync(join(temp, '.windows-label'), 'Temporary Storage\n');
  const prefix = privateWinePrefix(dir, { q: drive, t: temp }, ['q']);
  const conf = join(dir, 'c.conf');
  writeFileSync(
    conf,
    '[DEFAULT]\nmetadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService\nplugins=cloudbaseinit.plugins.common.ephemeraldisk.EphemeralDiskPlugin\nephemeral_disk_volume_label=Temporary Storage\nephemeral_disk_data_loss_warning_path=DATALOSS_WARNING_README.txt\nallow_reboot=false\n[config_drive]\ntypes=iso\nlocations=cdrom\n',
  );
  const r = runUnderWine(exe, ['--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /EphemeralDiskPlugin\s+done/);
  assert.match(readFileSync(join(temp, 'DATALOSS_WARNING_README.txt'), 'utf8'), /THIS IS A TEMPORARY DISK/);
});

test('MTUPlugin and ExtendVolumesPlugin under wine: bindings load, no state for MTU (before metadata discovery: every boot), run-every-boot state for ExtendVolumes; volumes_to_extend filters by HarddiskVolumeN', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const drive = join(dir, 'config-drive');
  writeConfigDrive(drive, 'kiln-e2e-volumes', '');
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  const conf = join(dir, 'c.conf');
  // volumes_to_extend names no volume: the drives are enumerated (QueryDosDeviceW) but nothing of the host is opened
  // for writing.
  writeFileSync(
    conf,
    '[DEFAULT]\nmetadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService\nplugins=cloudbaseinit.plugins.common.mtu.MTUPlugin,cloudbaseinit.plugins.windows.extendvolumes.ExtendVolumesPlugin\nvolumes_to_extend=99999\nallow_reboot=false\n[config_drive]\ntypes=iso\nlocations=cdrom\n',
  );
  const r = runUnderWine(exe, ['--debug', '--config-file', `Z:${conf}`], {
    WINEPREFIX: prefix,
    KILN_FACE: 'cloudbase-init',
  });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stderr, /C:\\ \(volume [^)]+\) is not in volumes_to_extend/);
  assert.match(r.stdout, /MTUPlugin\s+next-boot/);
  assert.equal(
    wineRegQuery(prefix, `${PLUGINS_KEY}\\Plugins`, 'MTUPlugin'),
    undefined,
    "a plugin before metadata discovery keeps no state, as cloudbase-init's",
  );
  assert.equal(
    wineRegQuery(prefix, `${PLUGINS_KEY}\\kiln-e2e-volumes\\Plugins`, 'ExtendVolumesPlugin'),
    'REG_DWORD 0x2',
  );
});
