// AzureGuestAgentPlugin on the fake Windows layer: old agent services and folders removed, the package unpacked,
// RdAgent (or Nano's WaSvc) installed and started.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { azureGuestAgentPlugin, provisionedAt } from '../../src/plugins/azure-guest-agent';
import type { PluginContext } from '../../src/plugins/plugin';
import { findPlugin } from '../../src/plugins/registry';
import { resolvePlugins } from '../../src/plugins/runner';
import { Logger, MemorySink } from '../../src/util/log';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

const PACKAGE = 'WaAppAgent_2.7.41491.1102_CustomerConfig.zip';

function context(vmAgent: unknown, setup: (win: FakeWindows, files: FakeFiles) => void = () => undefined) {
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  const win = new FakeWindows();
  const files = new FakeFiles();
  win.drives.push({ root: 'D:\\', label: 'Temporary Storage' });
  files.onRun = (argv, store) => {
    // tar.exe -xf ZIP -C TARGET: the package's files appear in TARGET.
    if (/tar\.exe$/i.test(argv[0] ?? '')) {
      const target = (argv[4] ?? '').replace(/^[a-z]:\\/i, '').toLowerCase();
      for (const name of ['waappagent.exe', 'transparentinstaller.dll'])
        store.set(`${target}\\${name}`, Buffer.from('MZ'));
    }
    if (/logman\.exe$/i.test(argv[0] ?? '')) return { code: argv.includes('RTEvents') ? 0x80300002 : 0 };
    return {};
  };
  setup(win, files);
  const ctx: PluginContext = {
    platform: files,
    windows: win.platform(logger),
    log: logger.for('azureguestagent.py'),
    conf: loadCloudbaseConf([{ path: 'c.conf', text: '[DEFAULT]\n' }]),
    instance: {
      instanceId: 'r',
      cloudName: 'azure',
      platform: 'azure',
      subplatform: 'x',
      publicKeys: [],
      metadata: vmAgent === undefined ? {} : { vm_agent: vmAgent },
    },
    shared: new Map(),
    randomPassword: (n) => 'R4nd!'.padEnd(n, 'x'),
    secret: () => undefined,
    env: { SystemRoot: 'C:\\Windows', SystemDrive: 'C:' },
  };
  return { ctx, win, files, log: () => sink.lines.join('') };
}

function withPackage(win: FakeWindows, files: FakeFiles, opts: { dotnet?: boolean } = {}): void {
  files.files.set(`$$\\oem\\guestagent\\${PACKAGE.toLowerCase()}`, Buffer.from('PK'));
  files.files.set('windows\\system32\\tar.exe', Buffer.from('MZ'));
  win.fileVersions.set('c:\\windowsazure\\packages\\transparentinstaller.dll', [2, 7, 41491, 1102]);
  if (opts.dotnet ?? true)
    win.setValue('HKLM', 'SOFTWARE\\Microsoft\\NET Framework Setup\\NDP\\v4\\Full', 'Install', {
      type: 'REG_DWORD',
      data: 1,
    });
}

test('AzureGuestAgentPlugin is a known plugin now (configuring it was an "unknown plugin" error)', () => {
  const errors: string[] = [];
  const warnings: string[] = [];
  const plugins = resolvePlugins(
    loadCloudbaseConf([
      { path: 'c', text: '[DEFAULT]\nplugins=cloudbaseinit.plugins.windows.azureguestagent.AzureGuestAgentPlugin\n' },
    ]),
    errors,
    warnings,
  );
  assert.deepEqual(errors, []);
  assert.deepEqual(plugins, [azureGuestAgentPlugin]);
  assert.equal(findPlugin('AzureGuestAgentPlugin'), azureGuestAgentPlugin);
});

test('AzureGuestAgentPlugin: without provisioning data, or with ProvisionGuestAgent false, nothing is touched', async () => {
  for (const data of [undefined, { provision: false, package_name: PACKAGE }]) {
    const { ctx, win, files, log } = context(data, (w) => w.serviceStates.set('rdagent', 4));
    assert.deepEqual(await azureGuestAgentPlugin.execute(ctx), { status: 'done', reboot: false });
    assert.deepEqual(files.runs, []);
    assert.equal(win.serviceStates.get('rdagent'), 4);
    assert.match(
      log(),
      data ? /Skipping Azure guest agent provisioning as by metadata request/ : /provisioning data not present/,
    );
  }
});

test('AzureGuestAgentPlugin: old services stopped and deleted, folders removed, traces stopped, the package unpacked, RdAgent created, registered and started', async () => {
  const { ctx, win, files, log } = context({ provision: true, package_name: PACKAGE }, (w, f) => {
    withPackage(w, f);
    w.services.set('rdagent', {
      name: 'RdAgent',
      displayName: 'RdAgent',
      binaryPath: 'C:\\old\\WaAppAgent.exe',
      startType: 'auto',
      dependencies: [],
    });
    w.serviceStates.set('rdagent', 4);
    w.services.set('windowsazuretelemetryservice', {
      name: 'WindowsAzureTelemetryService',
      displayName: 'T',
      binaryPath: 'C:\\old\\t.exe',
      startType: 'auto',
      dependencies: [],
    });
    f.files.set('windowsazure\\packages\\old.dll', Buffer.from('old'));
    f.files.set('packages\\plugins\\x', Buffer.from('old'));
  });
  assert.deepEqual(await azureGuestAgentPlugin.execute(ctx), { status: 'done', reboot: false });
  // The running RdAgent was stopped before it was deleted; the stopped telemetry service only deleted.
  assert.deepEqual(
    win.calls.filter((c) => /ControlService|DeleteService|StartServiceW/.test(c)),
    [
      'ControlService stop RdAgent',
      'DeleteService RdAgent',
      'DeleteService WindowsAzureTelemetryService',
      'StartServiceW RdAgent',
    ],
  );
  assert.equal(files.files.has('windowsazure\\packages\\old.dll'), false);
  assert.equal(files.files.has('packages\\plugins\\x'), false);
  const runs = files.runs.map((r) => r.join(' '));
  assert.deepEqual(
    runs.filter((r) => r.includes('logman')),
    [
      'C:\\Windows\\System32\\logman.exe stop GAEvents',
      'C:\\Windows\\System32\\logman.exe stop RTEvents',
      'C:\\Windows\\System32\\logman.exe -ets stop WindowsAzure-GuestAgent-Metrics',
      'C:\\Windows\\System32\\logman.exe -ets stop WindowsAzure-GuestAgent-Diagnostic',
      'C:\\Windows\\System32\\logman.exe delete GAEvents',
      'C:\\Windows\\System32\\logman.exe delete RTEvents',
    ],
  );
  assert.doesNotMatch(log(), /logman failed/, "logman's 'not found' is no failure");
  assert.ok(
    runs.includes(
      `C:\\Windows\\System32\\tar.exe -xf D:\\$$\\OEM\\GuestAgent\\${PACKAGE} -C C:\\WindowsAzure\\Packages`,
    ) ||
      runs.includes(
        `C:\\Windows\\System32\\tar.exe -xf C:\\$$\\OEM\\GuestAgent\\${PACKAGE} -C C:\\WindowsAzure\\Packages`,
      ),
    runs.join('\n'),
  );
  const rd = win.services.get('rdagent');
  assert.deepEqual(rd && { path: rd.binaryPath, start: rd.startType }, {
    path: 'C:\\WindowsAzure\\Packages\\WaAppAgent.exe',
    start: 'auto',
  });
  assert.equal(win.serviceStates.get('rdagent'), 4);
  assert.deepEqual(win.getValue('HKLM', 'SOFTWARE\\Microsoft\\Windows Azure', 'VMType'), {
    type: 'REG_SZ',
    data: 'IAAS',
  });
  assert.deepEqual(win.getValue('HKLM', 'SOFTWARE\\Microsoft\\GuestAgent', 'Incarnation'), {
    type: 'REG_SZ',
    data: '2.7.41491.1102',
  });
  const at = win.getValue('HKLM', 'SOFTWARE\\Microsoft\\GuestAgent', 'VmProvisionedAt');
  assert.match(String(at?.data), /^\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d [AP]M$/);
});

test('AzureGuestAgentPlugin: without .NET 4 RdAgent stays on manual start, not started; a missing package or name fails with the reason', async () => {
  const noDotnet = context({ provision: true, package_name: PACKAGE }, (w, f) => withPackage(w, f, { dotnet: false }));
  await azureGuestAgentPlugin.execute(noDotnet.ctx);
  assert.equal(noDotnet.win.services.get('rdagent')?.startType, 'demand');
  assert.equal(noDotnet.win.serviceStates.get('rdagent'), undefined);
  assert.match(noDotnet.log(), /The \.Net framework 4\.5 or greater is required by the Azure guest agent/);
  const missing = context({ provision: true, package_name: 'Other.zip' }, (w, f) => withPackage(w, f));
  await assert.rejects(
    azureGuestAgentPlugin.execute(missing.ctx),
    /Azure guest agent package file not found: C:\\\$\$\\OEM\\GuestAgent\\Other\.zip/,
  );
  const noName = context({ provision: true }, (w, f) => withPackage(w, f));
  await assert.rejects(azureGuestAgentPlugin.execute(noName.ctx), /package_name not found in metadata/);
  const noSource = context({ provision: true, package_name: PACKAGE });
  await assert.rejects(azureGuestAgentPlugin.execute(noSource.ctx), /source folder not found/);
  const badZip = context({ provision: true, package_name: PACKAGE }, (w, f) => {
    withPackage(w, f);
    f.onRun = (argv) =>
      /tar\.exe$/i.test(argv[0] ?? '')
        ? { code: 1, stderr: 'tar.exe: Error opening archive: Unrecognized archive format' }
        : {};
  });
  await assert.rejects(azureGuestAgentPlugin.execute(badZip.ctx), /could not unpack .*Unrecognized archive format/);
});

test('AzureGuestAgentPlugin on Nano Server: VmAgent_Nano.zip unpacked, WaSvc registered as WindowsAzureGuestAgent and started', async () => {
  const { ctx, win, files } = context({ provision: true }, (w, f) => {
    w.setValue('HKLM', 'SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Server\\ServerLevels', 'NanoServer', {
      type: 'REG_DWORD',
      data: 1,
    });
    f.onRun = () => ({});
  });
  assert.deepEqual(await azureGuestAgentPlugin.execute(ctx), { status: 'done', reboot: false });
  const run = files.runs.find((r) => /powershell\.exe$/i.test(r[0] ?? ''));
  assert.match(
    run?.join(' ') ?? '',
    /Expand-Archive -LiteralPath 'C:\\Windows\\NanoGuestAgent\\VmAgent_Nano\.zip' -DestinationPath 'C:\\WindowsAzure\\Packages\\GuestAgent' -Force/,
  );
  const svc = win.services.get('windowsazureguestagent');
  assert.equal(
    svc?.binaryPath,
    'C:\\WindowsAzure\\Packages\\GuestAgent\\WaSvc.exe -name WindowsAzureGuestAgent -ownLog C:\\WindowsAzure\\Logs\\W_svc.log -svcLog C:\\WindowsAzure\\Logs\\S_svc.log -event Global\\AzureAgentStopRequest -- C:\\WindowsAzure\\Packages\\GuestAgent\\Microsoft.Azure.Agent.Windows.exe',
  );
  assert.equal(svc?.startType, 'auto');
  assert.equal(win.serviceStates.get('windowsazureguestagent'), 4);
});

test('VmProvisionedAt is written as %m/%d/%Y %I:%M:%S %p', () => {
  assert.equal(provisionedAt(new Date(2026, 0, 5, 0, 7, 9)), '01/05/2026 12:07:09 AM');
  assert.equal(provisionedAt(new Date(2026, 10, 26, 13, 45, 0)), '11/26/2026 01:45:00 PM');
});
