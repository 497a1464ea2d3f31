// The built kiln-win-x64.exe as cloudbase-init under wine, reading OvfService's ovf-env.xml from a CD-ROM drive
// labelled as [ovf] drive_label says: host name and base64 user data applied as cloudbase-init applies them (the keys
// and the admin user: test/plugins/vmware-ovf-services.test.ts; wine's user profiles do not let
// SetUserSSHPublicKeysPlugin find a new user's home).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { tempDir } from '../helpers/temp';
import {
  markerBatch,
  markerLines,
  privateWinePrefix,
  runCloudbaseInit,
  wineComputerName,
  wineExe,
  writeCloudbaseInitConf,
} from '../helpers/wine';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGtpbG4tb3ZmLXdpbmUtZTJlLWtleS0wMDAwMDAwMDAwMDE ovf@wine';
const PLUGINS =
  'cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.common.userdata.UserDataPlugin';

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

/** Runs EXE with OvfService only, a CD-ROM Q: labelled LABEL holding FILE, and SECTIONS after [DEFAULT] in the conf. */
async function runOvf(
  t: TestContext,
  exe: string,
  label: string,
  props: (marker: string) => Record<string, string>,
  sections: string[] = [],
  file = 'ovf-env.xml',
) {
  const dir = tempDir(t);
  const drive = join(dir, 'ovf-cd');
  const marker = join(dir, 'user-data-ran.txt');
  mkdirSync(drive);
  writeFileSync(join(drive, '.windows-label'), `${label}\n`);
  writeFileSync(join(drive, file), ovfEnv(props(marker)));
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  writeCloudbaseInitConf(
    dir,
    ['metadata_services=cloudbaseinit.metadata.services.ovfservice.OvfService', `plugins=${PLUGINS}`],
    sections,
  );
  const r = await runCloudbaseInit(exe, dir, prefix);
  // stdout and stderr together, as the checks below look for a line in either.
  return {
    ...r,
    stdout: `${r.stdout}\n${r.stderr}`,
    marker: markerLines(marker),
    computerName: wineComputerName(prefix),
  };
}

/** A `rem cmd` batch appending LINE to MARKER, base64 as the user-data property wants it. */
function markerScript(marker: string, line: string): string {
  return Buffer.from(markerBatch(marker, line)).toString('base64');
}

test('cloudbase-init under wine: OvfService reads ovf-env.xml from the CD-ROM labelled OVF ENV, host name and base64 user data applied', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const r = await runOvf(t, exe, 'OVF ENV', (marker) => ({
    'instance-id': 'iid-ovf-wine',
    hostname: 'ovf-wine-vm',
    'public-keys': KEY,
    'user-data': markerScript(marker, 'read from OVF'),
  }));
  assert.equal(r.code, 0, r.all);
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.ovfservice\.OvfService \(OVF\), instance iid-ovf-wine$/m,
  );
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(r.stdout, /UserDataPlugin\s+done/);
  assert.deepEqual(r.marker, ['read from OVF']);
  assert.equal(r.computerName.toUpperCase(), 'OVF-WINE-VM');
});

test('cloudbase-init under wine: OvfService with [ovf] drive_label and config_file_name finds only that drive', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const r = await runOvf(
    t,
    exe,
    'vapp props',
    (marker) => ({ hostname: 'ovf-custom', 'user-data': markerScript(marker, 'custom label') }),
    ['[ovf]', 'drive_label=VAPP PROPS', 'config_file_name=vapp-env.xml'],
    'vapp-env.xml',
  );
  assert.equal(r.code, 0, r.all);
  // No instance-id property: OvfService's default.
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.ovfservice\.OvfService \(OVF\), instance iid-ovf$/m,
  );
  assert.deepEqual(r.marker, ['custom label']);
  assert.equal(r.computerName.toUpperCase(), 'OVF-CUSTOM');
});

test("cloudbase-init under wine: a drive labelled otherwise is not OvfService's, so no service is found and nothing is applied", async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const r = await runOvf(t, exe, 'CONFIG-2', (marker) => ({
    hostname: 'ovf-not-me',
    'user-data': markerScript(marker, 'must not run'),
  }));
  assert.doesNotMatch(r.stdout, /^metadata: .*OvfService/m, r.stdout);
  assert.match(r.stdout, /No available metadata service found \(tried OvfService\)/);
  assert.deepEqual(r.marker, []);
  assert.notEqual(r.computerName.toUpperCase(), 'OVF-NOT-ME');
});
