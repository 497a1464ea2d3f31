// cloudbase-init's VMwareGuestInfoService and OvfService, run by the cloudbase-init flow with kiln's VMware and OVF
// sources on a Windows platform.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { runCloudbaseInit, type CloudbaseRunnerDeps } from '../../src/plugins/runner';
import { ovfSource } from '../../src/sources/ovf/ovf-source';
import { vmwareSource } from '../../src/sources/vmware/vmware-source';
import { Logger, MemorySink } from '../../src/util/log';
import { tempDir } from '../helpers/temp';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFinder, type FakeDrive } from '../sources/fake-finder';
import { FakeFiles } from './fake-files';

const S = 'cloudbaseinit.metadata.services.';
const PLUGINS =
  'cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.windows.createuser.CreateUserPlugin';

function setup(conf: string, drives: FakeDrive[] = []) {
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  const files = new FakeFiles();
  const win = new FakeWindows();
  const deps: CloudbaseRunnerDeps = {
    platform: files,
    windows: win.platform(logger),
    log: logger.for('init.py'),
    conf: loadCloudbaseConf([{ path: 'cloudbase-init.conf', text: conf }]),
    sources: [ovfSource, vmwareSource],
    finder: new FakeFinder(new LinuxPlatform({ root: '/', log: logger.for('test') }), drives),
    randomPassword: (n) => 'Rr1!'.padEnd(n, 'x'),
    env: { SystemRoot: 'C:\\Windows', ProgramFiles: 'C:\\Program Files' },
    sleep: async () => undefined,
  };
  return { deps, win, files, sink };
}

test('VMwareGuestInfoService: rpctool.exe under %ProgramFiles% answers guestinfo.metadata (gz+b64 user data too)', async () => {
  const { deps, win, files } = setup(
    `[DEFAULT]\nmetadata_services=${S}vmwareguestinfoservice.VMwareGuestInfoService\nplugins=${PLUGINS}\nusername=kiln\nallow_reboot=false\n`,
  );
  const tool = 'C:\\Program Files\\VMware\\VMware Tools\\rpctool.exe';
  files.files.set('program files\\vmware\\vmware tools\\rpctool.exe', new Uint8Array([0x4d, 0x5a]));
  const { gzipSync } = await import('node:zlib');
  const guestinfo: Record<string, string> = {
    'guestinfo.metadata':
      'instance-id: iid-win-vm\nlocal-hostname: winvm01\nadmin-username: vmadmin\nadmin-password: Passw0rd-VM!\npublic-keys-data: |\n  ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIWin win@example\n',
    'guestinfo.userdata': gzipSync(Buffer.from('#ps1\nWrite-Host hi\n')).toString('base64'),
    'guestinfo.userdata.encoding': 'gz+b64',
  };
  const seen: string[][] = [];
  files.onRun = (argv) => {
    seen.push(argv);
    const key = /"info-get ([^"]+)"$/.exec(argv[3] ?? '')?.[1] ?? '';
    return key in guestinfo ? { code: 0, stdout: `${guestinfo[key]}\n` } : { code: 1, stderr: 'No value found' };
  };
  const report = await runCloudbaseInit(deps);
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.service, {
    classPath: `${S}vmwareguestinfoservice.VMwareGuestInfoService`,
    datasource: 'VMware',
  });
  assert.equal(report.instanceId, 'iid-win-vm');
  // Through the shell, as cloudbase-init's execute_process (shell=True) runs it: a batch file is a tool there too.
  assert.ok(
    seen.every((a) => a.length === 4 && a[0] === 'cmd.exe' && a[3]?.startsWith(`"${tool}" `)),
    `every call runs rpctool.exe through cmd.exe: ${JSON.stringify(seen)}`,
  );
  // The first call is the detection (cloudbase-init's load() test), then the crawl.
  assert.deepEqual(
    seen.map((a) => a[3]?.slice(tool.length + 3)),
    [
      '"info-get guestinfo.metadata"',
      '"info-get guestinfo.metadata"',
      '"info-get guestinfo.metadata.encoding"',
      '"info-get guestinfo.userdata"',
      '"info-get guestinfo.userdata.encoding"',
    ],
  );
  assert.ok(win.users.has('vmadmin'), 'admin-username names the user CreateUserPlugin makes');
});

test('VMwareGuestInfoService: no rpctool.exe at vmware_rpctool_path means the service is not there', async () => {
  const { deps } = setup(
    `[DEFAULT]\nmetadata_services=${S}vmwareguestinfoservice.VMwareGuestInfoService\nplugins=${PLUGINS}\nusername=kiln\n[vmwareguestinfo]\nvmware_rpctool_path=D:/tools/rpctool.exe\n`,
  );
  const report = await runCloudbaseInit(deps);
  assert.equal(report.service, undefined);
});

function ovfDrive(t: TestContext, label: string, xml: string): FakeDrive {
  const dir = join(tempDir(t), 'drive');
  mkdirSync(dir);
  writeFileSync(join(dir, 'ovf-env.xml'), xml);
  return { device: 'D:\\', label, fsType: 'iso9660', dir };
}

const ENV = (props: string) => `<?xml version="1.0" encoding="UTF-8"?>
<Environment xmlns="http://schemas.dmtf.org/ovf/environment/1" xmlns:oe="http://schemas.dmtf.org/ovf/environment/1">
  <PropertySection>${props}</PropertySection>
</Environment>
`;

test('OvfService: the drive labelled OVF ENV (any case), oe:key/oe:value properties, base64 user data, username and password', async (t) => {
  const xml = ENV(`
    <Property oe:key="instance-id" oe:value="iid-ovf-win"/>
    <Property oe:key="hostname" oe:value=" ovfwin01 "/>
    <Property oe:key="username" oe:value="ovfadmin"/>
    <Property oe:key="password" oe:value="Ovf-Passw0rd!"/>
    <Property oe:key="public-keys" oe:value="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOne one@example"/>
    <Property oe:key="public-keys" oe:value="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAITwo two@example"/>
    <Property oe:key="user-data" oe:value="${Buffer.from('#ps1\nWrite-Host ovf\n').toString('base64')}"/>`);
  const { deps, win } = setup(
    `[DEFAULT]\nmetadata_services=${S}ovfservice.OvfService\nplugins=${PLUGINS}\nusername=kiln\nallow_reboot=false\n`,
    [ovfDrive(t, 'ovf env', xml)],
  );
  const report = await runCloudbaseInit(deps);
  assert.deepEqual(report.errors, []);
  assert.equal(report.service?.datasource, 'OVF');
  assert.equal(report.instanceId, 'iid-ovf-win');
  assert.ok(win.users.has('ovfadmin'));
});

test('OvfService: another label is not the OVF drive; [ovf] drive_label changes it; instance-id defaults to iid-ovf', async (t) => {
  const xml = ENV('<Property oe:key="hostname" oe:value="h1"/>');
  const other = setup(`[DEFAULT]\nmetadata_services=${S}ovfservice.OvfService\nplugins=${PLUGINS}\nusername=kiln\n`, [
    ovfDrive(t, 'CONFIG-2', xml),
  ]);
  assert.equal((await runCloudbaseInit(other.deps)).service, undefined);
  const custom = setup(
    `[DEFAULT]\nmetadata_services=${S}ovfservice.OvfService\nplugins=${PLUGINS}\nusername=kiln\nallow_reboot=false\n[ovf]\ndrive_label=VAPP\n`,
    [ovfDrive(t, 'vapp', xml)],
  );
  const report = await runCloudbaseInit(custom.deps);
  assert.equal(report.service?.datasource, 'OVF');
  assert.equal(report.instanceId, 'iid-ovf');
});

test('VMwareGuestInfoService: rpctool.exe present but guestinfo empty is "not this service", not an error (cloudbase-init\'s load)', async () => {
  const { deps, files } = setup(
    `[DEFAULT]\nmetadata_services=${S}vmwareguestinfoservice.VMwareGuestInfoService\nplugins=${PLUGINS}\nusername=kiln\n`,
  );
  files.files.set('program files\\vmware\\vmware tools\\rpctool.exe', new Uint8Array([0x4d, 0x5a]));
  files.onRun = () => ({ code: 1, stderr: 'No value found' });
  const report = await runCloudbaseInit(deps);
  assert.equal(report.service, undefined);
  assert.equal(report.errors.filter((e) => e.startsWith('metadata service ')).length, 0, report.errors.join('\n'));
});
