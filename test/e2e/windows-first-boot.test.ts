// A whole cloudbase-init first boot under wine, as a sysprepped Windows runs it: the built kiln-win-x64.exe started
// as the cloudbase-init service by wine's service control manager, in a network namespace of the test's own (its
// eth0 is the adapter the metadata configures), with a config drive, SetHostName, CreateUser, NetworkConfig, a
// multipart user data and the WinRM listener through stand-in system tools; then the second boot, which must change
// nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { installCommandLineLoggers, loggedCommandLines } from '../helpers/command-line-logger';
import { makeLab } from '../helpers/netns-lab';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { keepWineSession, privateWinePrefix, startServiceAndWait, wineExe, wineRegQuery } from '../helpers/wine';

const MAC = '02:00:5e:00:53:43';
const INSTANCE = 'kiln-e2e-first-boot';
const STATE_KEY = 'HKLM\\SOFTWARE\\Cloudbase Solutions\\Cloudbase-Init';
const INTERFACES_KEY = 'HKLM\\SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\Interfaces';

/** A multipart user data of two `.cmd` parts, each appending its name to MARKER (a host file reached through Z:). */
function multipartUserData(marker: string): string {
  const target = `Z:${marker.replace(/\//g, '\\')}`;
  const part = (name: string) =>
    [
      `--kiln-boundary`,
      'Content-Type: text/x-shellscript; charset="us-ascii"',
      `Content-Disposition: attachment; filename="${name}.cmd"`,
      '',
      `echo ${name}>> ${target}`,
      'exit 0',
    ].join('\r\n');
  return [
    'Content-Type: multipart/mixed; boundary="kiln-boundary"',
    'MIME-Version: 1.0',
    '',
    part('10-first'),
    part('20-second'),
    '--kiln-boundary--',
    '',
  ].join('\r\n');
}

test('a whole first boot under wine with the built exe as the service: host name, user, network state, user data parts in order, the WinRM listener; exit 0; the second boot changes nothing', {
  timeout: 900_000,
}, (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  if (!need(t, isRoot() && hasCommand('ip'), 'needs root and ip (iproute2) for a network namespace of its own')) return;
  const lab = makeLab(t, { mac: MAC, dhcp: false });
  const dir = tempDir(t);
  const marker = join(dir, 'user-data-ran.txt');

  // The config drive: meta data, network data for the namespace's eth0, the multipart user data.
  const drive = join(dir, 'config-drive');
  mkdirSync(join(drive, 'openstack', 'latest'), { recursive: true });
  writeFileSync(join(drive, '.windows-label'), 'config-2\n');
  writeFileSync(
    join(drive, 'openstack', 'latest', 'meta_data.json'),
    JSON.stringify({ uuid: INSTANCE, hostname: 'first-boot-wine.example.org', name: 'first-boot' }),
  );
  writeFileSync(
    join(drive, 'openstack', 'latest', 'network_data.json'),
    JSON.stringify({
      links: [{ id: 'tap1', type: 'phy', ethernet_mac_address: MAC }],
      networks: [
        {
          id: 'n4',
          type: 'ipv4',
          link: 'tap1',
          ip_address: '192.0.2.78',
          netmask: '255.255.255.0',
          routes: [{ network: '0.0.0.0', netmask: '0.0.0.0', gateway: '192.0.2.1' }],
        },
      ],
      services: [{ type: 'dns', address: '192.0.2.53' }],
    }),
  );
  writeFileSync(join(drive, 'openstack', 'latest', 'user_data'), multipartUserData(marker));

  // The system tools kiln calls by their System32 path (sc, net, netsh, cscript) as loggers of their command line,
  // in the sandbox --root names; cmd.exe for the user data is wine's own (found on PATH).
  const root = join(dir, 'root');
  const system32 = join(root, 'Windows', 'System32');
  if (!installCommandLineLoggers(t, system32, ['cscript.exe', 'sc.exe', 'net.exe', 'netsh.exe'])) return;
  writeFileSync(join(system32, 'winrm.vbs'), "' stand-in\r\n");

  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  // wine's services.exe gives a starting service 10 s to connect (Windows: 30 s); Node under wine on a busy machine
  // can need more, so the prefix gets a longer ServicesPipeTimeout (milliseconds).
  appendFileSync(
    join(prefix, 'system.reg'),
    '\n[System\\\\CurrentControlSet\\\\Control] 1700000000\n"ServicesPipeTimeout"=dword:0001d4c0\n',
  );
  const conf = join(dir, 'cloudbase-init.conf');
  writeFileSync(
    conf,
    [
      '[DEFAULT]',
      'username=kilnadmin',
      'groups=Administrators',
      'inject_user_password=true',
      'metadata_services=cloudbaseinit.metadata.services.configdrive.ConfigDriveService',
      'plugins=' +
        [
          'common.sethostname.SetHostNamePlugin',
          'windows.createuser.CreateUserPlugin',
          'common.networkconfig.NetworkConfigPlugin',
          'common.userdata.UserDataPlugin',
          'windows.winrmlistener.ConfigWinRMListenerPlugin',
        ]
          .map((p) => `cloudbaseinit.plugins.${p}`)
          .join(','),
      'allow_reboot=false',
      'debug=true',
      `log_dir=Z:${dir}`,
      'log_file=cloudbase-init.log',
      '[config_drive]',
      'types=iso',
      'locations=cdrom',
      '',
    ].join('\r\n'),
  );

  // Every wine process of this prefix runs in the namespace, the wineserver and services.exe first among them, so
  // the service the manager starts sees the namespace's adapters.
  const wine = (args: string[]) =>
    spawnSync('ip', ['netns', 'exec', lab.client, 'wine', ...args], {
      env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' },
      encoding: 'utf8',
      timeout: 180_000,
    });
  const regValue = (key: string, name: string) => wineRegQuery(prefix, key, name, lab.client);
  const exported = (key: string) => {
    const file = join(dir, 'export.reg');
    const r = wine(['reg', 'export', key, `Z:${file.replace(/\//g, '\\')}`, '/y']);
    assert.equal(r.status, 0, `reg export ${key}: ${r.stdout}${r.stderr}`);
    return readFileSync(file).toString('utf16le');
  };
  const certificates = () =>
    wine(['reg', 'query', 'HKLM\\Software\\Microsoft\\SystemCertificates\\MY\\Certificates']).stdout ?? '';

  // The image as sysprep leaves it: kiln registered as the service (with the sandbox root in its command line), and
  // a WinRM service for the listener plugin to find.
  const install = spawnSync(
    'ip',
    [
      'netns',
      'exec',
      lab.client,
      'sh',
      '-c',
      `wine '${exe}' service install --start demand --config-file 'Z:${conf}' > '${join(dir, 'install.txt')}' 2>&1`,
    ],
    { env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' }, timeout: 180_000 },
  );
  assert.equal(install.status, 0, readFileSync(join(dir, 'install.txt'), 'utf8'));
  const serviceKey = 'HKLM\\System\\CurrentControlSet\\Services\\cloudbase-init';
  const imagePath = regValue(serviceKey, 'ImagePath')?.replace(/^REG_\w+ /, '') ?? '';
  assert.match(imagePath, / service run --config-file /);
  const rooted = imagePath.replace(' service run ', ` --root Z:${root.replace(/\//g, '\\')} service run `);
  // The WinRM service is registered before wine's processes are ended below: right after that, services.exe may not
  // be back yet (a fresh CI run once had `sc create` fail there).
  const winrm = wine(['sc', 'create', 'WinRM', 'binPath=', 'C:\\windows\\system32\\cmd.exe']);
  assert.equal(winrm.status, 0, `${winrm.stdout}${winrm.stderr}`);
  // wine's sc.exe cannot `config` a binPath, and services.exe keeps the configuration it loaded: the ImagePath is
  // changed in the registry and wine's processes are ended (wineboot --kill), so that services.exe reads it anew.
  assert.equal(
    wine(['reg', 'add', serviceKey, '/v', 'ImagePath', '/t', 'REG_EXPAND_SZ', '/d', rooted, '/f']).status,
    0,
  );
  wine(['wineboot', '--kill']);
  assert.equal(regValue(serviceKey, 'ImagePath')?.replace(/^REG_\w+ /, ''), rooted);

  keepWineSession(t, { WINEPREFIX: prefix }, lab.client);

  /** One boot: the service control manager starts the service, which runs the flow and stops; its exit code. */
  const boot = (): string => {
    const { started, state } = startServiceAndWait(wine, 'cloudbase-init');
    const log = existsSync(join(dir, 'cloudbase-init.log'))
      ? readFileSync(join(dir, 'cloudbase-init.log'), 'utf8')
      : '(no log)';
    assert.ok(state, `the service did not stop: ${started}\n${log}`);
    return /WIN32_EXIT_CODE\s+:\s+(\d+)/.exec(state)?.[1] ?? '';
  };

  // First boot.
  assert.equal(boot(), '0', 'the service ends with 0, as cloudbase-init');
  const log = readFileSync(join(dir, 'cloudbase-init.log'), 'utf8');
  const plugins = `${STATE_KEY}\\${INSTANCE}\\Plugins`;
  assert.equal(regValue(plugins, 'SetHostNamePlugin'), 'REG_DWORD 0x1', log);
  assert.equal(regValue(plugins, 'CreateUserPlugin'), 'REG_DWORD 0x1', log);
  assert.equal(regValue(plugins, 'UserDataPlugin'), 'REG_DWORD 0x1', log);
  assert.equal(regValue(plugins, 'ConfigWinRMListenerPlugin'), 'REG_DWORD 0x1', log);
  // wine's iphlpapi has no row functions: the persistent state is written, the live part fails, and the plugin runs
  // again at the next boot (as cloudbase-init's would after an exception).
  assert.equal(regValue(plugins, 'NetworkConfigPlugin'), undefined, log);
  assert.match(log, /iphlpapi\.dll has no InitializeUnicastIpAddressEntry/);
  assert.equal(
    regValue('HKLM\\System\\CurrentControlSet\\Control\\ComputerName\\ComputerName', 'ComputerName'),
    'REG_SZ FIRST-BOOT-WINE',
  );
  assert.match(log, /Creating user kilnadmin/);
  assert.deepEqual(
    readFileSync(marker, 'utf8')
      .trim()
      .split(/\r?\n/)
      .map((l) => l.trim()),
    ['10-first', '20-second'],
    'the parts ran once each, in order',
  );
  const guid = new RegExp(`Adapter \\d+ '[^']*' ${MAC} (\\{[0-9A-Fa-f-]+\\})`).exec(log)?.[1];
  assert.ok(guid, `the service saw the namespace's eth0 as an adapter:\n${log}`);
  const iface = `${INTERFACES_KEY}\\${guid}`;
  // The adapter's key read once, all its values (a failure shows what was there, and the log says what was written).
  const adapter = wine(['reg', 'query', iface]);
  const values = Object.fromEntries(
    [...(adapter.stdout ?? '').matchAll(/^\s*(\S+)\s+(REG_\w+)\s+(.*?)\s*$/gm)].map((m) => [m[1], `${m[2]} ${m[3]}`]),
  );
  const why = `${adapter.stdout}${adapter.stderr}\n${log
    .split('\n')
    .filter((l) => l.includes(guid))
    .join('\n')}`;
  assert.equal(values.EnableDHCP, 'REG_DWORD 0x0', why);
  assert.equal(values.IPAddress, 'REG_MULTI_SZ 192.0.2.78', why);
  assert.equal(values.DefaultGateway, 'REG_MULTI_SZ 192.0.2.1', why);
  assert.equal(values.NameServer, 'REG_SZ 192.0.2.53', why);
  const thumbprint = /Created a self-signed certificate for CN=\S+ in LocalMachine\\My: ([0-9A-F]{40})/.exec(log)?.[1];
  assert.ok(thumbprint, log);
  assert.ok(
    loggedCommandLines(system32).some((l) =>
      l.includes(
        `winrm.vbs create winrm/config/Listener?Address=*+Transport=HTTPS @{Hostname="FIRST-BOOT-WINE";CertificateThumbprint="${thumbprint}"}`,
      ),
    ),
    loggedCommandLines(system32).join('\n'),
  );

  // Second boot: the same registry state, the same certificates, the user data and the WinRM tools not run again;
  // only NetworkConfigPlugin runs again, and writes what is already there.
  const before = {
    state: exported(STATE_KEY),
    iface: exported(iface),
    certificates: certificates(),
    tools: loggedCommandLines(system32).filter((l) => !/\\netsh\.exe /.test(l)),
  };
  assert.equal(boot(), '0');
  assert.equal(exported(STATE_KEY), before.state, 'the plugin state changed');
  assert.equal(exported(iface), before.iface, 'the adapter state changed');
  assert.equal(certificates(), before.certificates, 'a certificate was added');
  assert.deepEqual(
    loggedCommandLines(system32).filter((l) => !/\\netsh\.exe /.test(l)),
    before.tools,
    'a WinRM tool ran again',
  );
  assert.deepEqual(
    readFileSync(marker, 'utf8')
      .trim()
      .split(/\r?\n/)
      .map((l) => l.trim()),
    ['10-first', '20-second'],
    'the user data ran again',
  );
  spawnSync('ip', ['netns', 'exec', lab.client, 'wineserver', '-k'], { env: { ...process.env, WINEPREFIX: prefix } });
});
