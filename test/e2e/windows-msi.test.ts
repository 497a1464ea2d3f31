// The MSI msi.mjs makes of the built kiln-win-x64.exe (what `npm run release` ships): the same bytes when built twice,
// an arm64 one that says so, and under wine `msiexec /i … /qn PROPERTY=…` as with cloudbase-init's MSI: the files in
// cloudbase-init's layout, the properties in both confs, the cloudbase-init service whose binary runs; `msiexec /x`
// takes it all out again. The prefix has a C: of its own, so nothing installed reaches other tests.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { REPO } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { privateWinePrefix, runUnderWine, wineExe, wineRegQuery } from '../helpers/wine';

/**
 * Builds the MSI of TARGET (win-x64 or win-arm64) carrying EXE into OUTPUT with msi.mjs, in a child (the .mjs is not
 * part of the test bundle).
 */
function buildMsi(targetName: string, exe: string, output: string): void {
  const script = `
    const { buildMsi } = await import(${JSON.stringify(join(REPO, 'msi.mjs'))});
    const { loadTargets, targetInstallFiles } = await import(${JSON.stringify(join(REPO, 'build.mjs'))});
    const target = loadTargets().find((t) => t.name === ${JSON.stringify(targetName)});
    const files = Object.fromEntries(Object.entries(targetInstallFiles(target)).map(([n, f]) => [n, f.text]));
    buildMsi({ target, exe: ${JSON.stringify(exe)}, files, version: '0.1.0', output: ${JSON.stringify(output)} });`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: REPO });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
}

function msiTools(t: TestContext): boolean {
  return (
    need(t, hasCommand('wixl'), 'wixl is not installed (apt-get install wixl)') &&
    need(t, hasCommand('msiinfo'), 'msitools is not installed (apt-get install msitools)')
  );
}

/** A file's lines as a map of key → value in the [DEFAULT] section of a conf. */
function defaults(text: string): Map<string, string> {
  const values = new Map<string, string>();
  let section = '';
  for (const line of text.split(/\r?\n/)) {
    const header = /^\[(.*)\]$/.exec(line.trim());
    if (header) section = header[1] ?? '';
    else if (section === 'DEFAULT' && !line.startsWith('#') && line.includes('='))
      values.set(line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1));
  }
  return values;
}

test('the MSI is the same bytes when built twice; the arm64 one names the Arm64 platform and carries the arm64 answer file', (t) => {
  const exe = wineExe(t);
  if (!exe || !msiTools(t)) return;
  const dir = tempDir(t);
  buildMsi('win-x64', exe, join(dir, 'a.msi'));
  buildMsi('win-x64', exe, join(dir, 'b.msi'));
  assert.ok(
    readFileSync(join(dir, 'a.msi')).equals(readFileSync(join(dir, 'b.msi'))),
    'two builds of the x64 MSI differ',
  );
  const x64 = spawnSync('msiinfo', ['suminfo', join(dir, 'a.msi')], { encoding: 'utf8' }).stdout;
  assert.match(x64, /^Template: x64;1033$/m);

  // The arm64 MSI wraps whatever binary it is given; the x64 one stands in (no arm64 build needed for the package's own
  // facts).
  buildMsi('win-arm64', exe, join(dir, 'arm64.msi'));
  const arm64 = spawnSync('msiinfo', ['suminfo', join(dir, 'arm64.msi')], { encoding: 'utf8' }).stdout;
  assert.match(arm64, /^Template: Arm64;1033$/m);
  assert.match(arm64, /^Created: Tue Jan {2}1 00:00:00 1980$/m);
  const codes = (file: string) =>
    spawnSync('msiinfo', ['export', file, 'Property'], { encoding: 'utf8' }).stdout.match(
      /^(ProductCode|UpgradeCode)\t.*$/gm,
    );
  assert.notDeepEqual(
    codes(join(dir, 'arm64.msi')),
    codes(join(dir, 'a.msi')),
    'x64 and arm64 share a product or upgrade code',
  );
  const extracted = join(dir, 'extracted');
  const r = spawnSync('msiextract', ['-C', extracted, join(dir, 'arm64.msi')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const unattend = readFileSync(join(extracted, 'Cloudbase Solutions/Cloudbase-Init/conf/Unattend.xml'), 'utf8');
  assert.match(unattend, /processorArchitecture="arm64"/);
  assert.doesNotMatch(unattend, /processorArchitecture="amd64"/);
});

test("msiexec /i … /qn with cloudbase-init's properties under wine: layout, confs, service; the binary runs; msiexec /x removes it", (t) => {
  const exe = wineExe(t);
  if (!exe || !msiTools(t)) return;
  const dir = tempDir(t);
  const msi = join(dir, 'kiln-win-x64.msi');
  buildMsi('win-x64', exe, msi);
  const prefix = privateWinePrefix(dir, {}, [], { ownDriveC: true });
  const driveC = join(prefix, 'drive_c');
  const base = 'Program Files/Cloudbase Solutions/Cloudbase-Init';
  // What other tests left in the shared C: before drives of their own existed is not this MSI's doing.
  rmSync(join(driveC, 'Program Files/Cloudbase Solutions'), { recursive: true, force: true });
  rmSync(join(driveC, 'windows/Setup/Scripts'), { recursive: true, force: true });
  const env = { WINEPREFIX: prefix };
  const msiPath = `Z:${msi.replace(/\//g, '\\')}`;
  const log = join(dir, 'msiexec.log');
  const logPath = `Z:${log.replace(/\//g, '\\')}`;
  const msiLog = () => (existsSync(log) ? readFileSync(log, 'latin1') : '(no log)');
  t.after(() => spawnSync('wineserver', ['-k'], { env: { ...process.env, WINEPREFIX: prefix } }));

  // The msiexec line as a pipeline writes it for cloudbase-init's MSI, run by cmd from a batch file (wine would
  // re-quote the quotes of a Unix argument). wine's msiexec takes the word after an empty PROPERTY="" as its value,
  // where Windows' does not: the empty one comes last.
  const batch = join(dir, 'install.cmd');
  writeFileSync(
    batch,
    `@echo off\r\nmsiexec /i "${msiPath}" /qn /l*v "${logPath}" USERNAME=ops USERGROUPS="Remote Desktop Users" LOGGINGSERIALPORTNAME=COM2 RUN_SERVICE_AS_LOCAL_SYSTEM=1 INJECTMETADATAPASSWORD=""\r\nexit /b %errorlevel%\r\n`,
  );
  let r = runUnderWine('cmd', ['/c', `Z:${batch.replace(/\//g, '\\')}`], env);
  assert.equal(r.code, 0, `${r.stderr}\n${msiLog()}`);
  assert.ok(readFileSync(join(driveC, base, 'kiln.exe')).equals(readFileSync(exe)), 'kiln.exe is the built binary');
  assert.deepEqual(readdirSync(join(driveC, base)).sort(), ['LocalScripts', 'conf', 'kiln.exe', 'log']);
  assert.deepEqual(readdirSync(join(driveC, base, 'conf')).sort(), [
    'Unattend.xml',
    'cloudbase-init-unattend.conf',
    'cloudbase-init.conf',
  ]);
  assert.equal(
    readFileSync(join(driveC, base, 'conf/Unattend.xml'), 'utf8'),
    readFileSync(join(REPO, 'images/windows/Unattend.xml'), 'utf8'),
  );
  assert.equal(
    readFileSync(join(driveC, 'windows/Setup/Scripts/SetupComplete.cmd'), 'utf8'),
    readFileSync(join(REPO, 'images/windows/SetupComplete.cmd'), 'utf8'),
  );
  for (const conf of ['cloudbase-init.conf', 'cloudbase-init-unattend.conf']) {
    const installed = defaults(readFileSync(join(driveC, base, 'conf', conf), 'utf8'));
    const shipped = defaults(readFileSync(join(REPO, 'images/windows', conf), 'utf8'));
    assert.equal(installed.get('username'), 'ops', conf);
    assert.equal(installed.get('groups'), 'Remote Desktop Users', conf);
    assert.equal(installed.get('inject_user_password'), 'false', conf);
    assert.equal(installed.get('logging_serial_port_settings'), 'COM2,115200,N,8', conf);
    // Every other setting is the shipped conf's.
    for (const key of ['username', 'groups', 'inject_user_password', 'logging_serial_port_settings']) {
      installed.delete(key);
      shipped.delete(key);
    }
    assert.deepEqual(installed, shipped, conf);
  }
  const key = 'HKLM\\System\\CurrentControlSet\\Services\\cloudbase-init';
  // Windows Installer quotes the key file's path in ImagePath; wine's (8.0) writes it bare.
  assert.match(
    wineRegQuery(prefix, key, 'ImagePath') ?? '',
    /^REG_SZ ("?)C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init\\kiln\.exe\1 service run --config-file "C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init\\conf\\cloudbase-init\.conf"$/,
  );
  assert.equal(wineRegQuery(prefix, key, 'ObjectName'), 'REG_SZ LocalSystem');
  assert.equal(wineRegQuery(prefix, key, 'Start'), 'REG_DWORD 0x3');
  assert.match(wineRegQuery(prefix, key, 'DependOnService') ?? '', /^REG_MULTI_SZ Tcpip\\0ProfSvc/);

  // The binary the service starts runs from where the MSI put it.
  r = runUnderWine('C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init\\kiln.exe', ['--version'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /kiln/);

  r = runUnderWine('msiexec', ['/x', msiPath, '/qn', '/l*v', logPath], env);
  assert.equal(r.code, 0, `${r.stderr}\n${msiLog()}`);
  assert.equal(wineRegQuery(prefix, key, 'ImagePath'), undefined, 'the service is still registered');
  assert.equal(
    existsSync(join(driveC, base)),
    false,
    `${base} is left: ${existsSync(join(driveC, base)) ? readdirSync(join(driveC, base)).join(', ') : ''}`,
  );
  assert.equal(existsSync(join(driveC, 'windows/Setup/Scripts/SetupComplete.cmd')), false, 'SetupComplete.cmd is left');

  // Without properties the confs keep the shipped values, and no serial port line is added.
  r = runUnderWine('msiexec', ['/i', msiPath, '/qn', '/l*v', logPath], env);
  assert.equal(r.code, 0, `${r.stderr}\n${msiLog()}`);
  for (const conf of ['cloudbase-init.conf', 'cloudbase-init-unattend.conf']) {
    assert.deepEqual(
      defaults(readFileSync(join(driveC, base, 'conf', conf), 'utf8')),
      defaults(readFileSync(join(REPO, 'images/windows', conf), 'utf8')),
      conf,
    );
  }
});
