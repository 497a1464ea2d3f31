// The built kiln-win-x64.exe as cloudbase-init under wine, reading OvfService's ovf-env.xml from a CD-ROM drive labelled
// as [ovf] drive_label says: host name and base64 user data applied as cloudbase-init applies them (the keys and the
// admin user: test/plugins/vmware-ovf-services.test.ts; wine's user profiles do not let SetUserSSHPublicKeysPlugin find a
// new user's home).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { builtBinary } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { privateWinePrefix, runUnderWine } from '../helpers/wine';

const exe = builtBinary('kiln-win-x64.exe');
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGtpbG4tb3ZmLXdpbmUtZTJlLWtleS0wMDAwMDAwMDAwMDE ovf@wine';
const PLUGINS = 'cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.common.userdata.UserDataPlugin';

/** An OVF environment as vSphere writes it: the environment namespace as default and as `oe`, one Property per key. */
function ovfEnv(props: Record<string, string>): string {
  const lines = Object.entries(props).map(([k, v]) => `    <Property oe:key="${k}" oe:value="${v}"/>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<Environment xmlns="http://schemas.dmtf.org/ovf/environment/1" xmlns:oe="http://schemas.dmtf.org/ovf/environment/1"',
    '     xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" oe:id="">',
    '  <PlatformSection><Kind>VMware ESXi</Kind><Version>8.0.0</Version><Vendor>VMware, Inc.</Vendor><Locale>en</Locale></PlatformSection>',
    '  <PropertySection>',
    ...lines,
    '  </PropertySection>',
    '</Environment>',
    '',
  ].join('\n');
}

interface OvfRun {
  code: number;
  stdout: string;
  log: string;
  marker: string[];
  computerName: string;
}

/** Runs the exe with OvfService only, a CD-ROM Q: labelled LABEL holding FILE, and CONF_EXTRA in the conf. */
function runOvf(t: TestContext, label: string, props: (marker: string) => Record<string, string>, confExtra: string[] = [], file = 'ovf-env.xml'): OvfRun {
  const dir = tempDir(t);
  const drive = join(dir, 'ovf-cd');
  const marker = join(dir, 'user-data-ran.txt');
  mkdirSync(drive);
  writeFileSync(join(drive, '.windows-label'), `${label}\n`);
  writeFileSync(join(drive, file), ovfEnv(props(marker)));
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  const conf = join(dir, 'cloudbase-init.conf');
  writeFileSync(
    conf,
    [
      '[DEFAULT]',
      'metadata_services=cloudbaseinit.metadata.services.ovfservice.OvfService',
      `plugins=${PLUGINS}`,
      'allow_reboot=false',
      `log_dir=Z:${dir}`,
      'log_file=cloudbase-init.log',
      ...confExtra,
      '',
    ].join('\r\n'),
  );
  const r = runUnderWine(exe as string, ['--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  const logFile = join(dir, 'cloudbase-init.log');
  const reg = spawnSync('wine', ['reg', 'query', 'HKLM\\System\\CurrentControlSet\\Control\\ComputerName\\ComputerName', '/v', 'ComputerName'], { env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' }, encoding: 'utf8', timeout: 60_000 });
  return {
    code: r.code,
    stdout: `${r.stdout}\n${r.stderr}`,
    log: existsSync(logFile) ? readFileSync(logFile, 'utf8') : '',
    marker: existsSync(marker) ? readFileSync(marker, 'utf8').trim().split(/\r?\n/) : [],
    computerName: /ComputerName\s+REG_SZ\s+(\S+)/i.exec(reg.stdout ?? '')?.[1] ?? '',
  };
}

/** A `rem cmd` batch (cloudbase-init's cmd user data) appending LINE to MARKER, base64 as the user-data property wants it. */
function markerScript(marker: string, line: string): string {
  return Buffer.from(`rem cmd\r\necho ${line}>> Z:${marker.replace(/\//g, '\\')}\r\nexit 0\r\n`).toString('base64');
}

function skip(t: TestContext): boolean {
  return !need(t, exe !== undefined, 'dist/kiln-win-x64.exe is not built (node build.mjs win-x64)') || !need(t, hasCommand('wine'), 'wine is not installed (apt-get install wine wine64)');
}

test('cloudbase-init under wine: OvfService reads ovf-env.xml from the CD-ROM labelled OVF ENV, host name and base64 user data applied', (t) => {
  if (skip(t)) return;
  const r = runOvf(t, 'OVF ENV', (marker) => ({
    'instance-id': 'iid-ovf-wine',
    hostname: 'ovf-wine-vm',
    'public-keys': KEY,
    'user-data': markerScript(marker, 'read from OVF'),
  }));
  assert.equal(r.code, 0, `${r.stdout}\n${r.log}`);
  assert.match(r.stdout, /^metadata: cloudbaseinit\.metadata\.services\.ovfservice\.OvfService \(OVF\), instance iid-ovf-wine$/m);
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(r.stdout, /UserDataPlugin\s+done/);
  assert.deepEqual(r.marker, ['read from OVF']);
  assert.equal(r.computerName.toUpperCase(), 'OVF-WINE-VM');
});

test('cloudbase-init under wine: OvfService with [ovf] drive_label and config_file_name finds only that drive', (t) => {
  if (skip(t)) return;
  const r = runOvf(
    t,
    'vapp props',
    (marker) => ({ hostname: 'ovf-custom', 'user-data': markerScript(marker, 'custom label') }),
    ['[ovf]', 'drive_label=VAPP PROPS', 'config_file_name=vapp-env.xml'],
    'vapp-env.xml',
  );
  assert.equal(r.code, 0, `${r.stdout}\n${r.log}`);
  // No instance-id property: OvfService's default.
  assert.match(r.stdout, /^metadata: cloudbaseinit\.metadata\.services\.ovfservice\.OvfService \(OVF\), instance iid-ovf$/m);
  assert.deepEqual(r.marker, ['custom label']);
  assert.equal(r.computerName.toUpperCase(), 'OVF-CUSTOM');
});

test('cloudbase-init under wine: a drive labelled otherwise is not OvfService\'s, so no service is found and nothing is applied', (t) => {
  if (skip(t)) return;
  const r = runOvf(t, 'CONFIG-2', (marker) => ({ hostname: 'ovf-not-me', 'user-data': markerScript(marker, 'must not run') }));
  assert.doesNotMatch(r.stdout, /^metadata: .*OvfService/m, r.stdout);
  assert.match(r.stdout, /No available metadata service found \(tried OvfService\)/);
  assert.deepEqual(r.marker, []);
  assert.notEqual(r.computerName.toUpperCase(), 'OVF-NOT-ME');
});
