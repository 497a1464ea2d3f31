// The built kiln-win-x64.exe installs itself under wine as images/windows/install-kiln.cmd does: kiln.exe and
// the confs in cloudbase-init's layout, SetupComplete.cmd, the service; and uninstall takes them out again.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { privateWinePrefix, runUnderWine, wineExe, wineRegQuery } from '../helpers/wine';

function tree(dir: string, rel = ''): string[] {
  return readdirSync(join(dir, rel))
    .sort()
    .flatMap((name) => {
      const path = rel ? `${rel}/${name}` : name;
      return statSync(join(dir, path)).isDirectory() ? [`${path}/`, ...tree(dir, path)] : [path];
    });
}

test('kiln install under wine (--root on a Z: folder): the cloudbase-init layout, SetupComplete.cmd and the service; uninstall removes them', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const image = join(dir, 'image');
  mkdirSync(image);
  const root = `Z:${image.replace(/\//g, '\\')}`;
  const prefix = privateWinePrefix(dir, {}, []);
  const env = { WINEPREFIX: prefix };

  let r = runUnderWine(exe, ['--root', root, 'install'], env);
  assert.equal(r.code, 0, r.stderr);
  const base = 'Program Files/Cloudbase Solutions/Cloudbase-Init';
  assert.deepEqual(tree(image), [
    'Program Files/',
    'Program Files/Cloudbase Solutions/',
    `${base}/`,
    `${base}/LocalScripts/`,
    `${base}/conf/`,
    `${base}/conf/Unattend.xml`,
    `${base}/conf/cloudbase-init-unattend.conf`,
    `${base}/conf/cloudbase-init.conf`,
    `${base}/kiln.exe`,
    `${base}/log/`,
    'Windows/',
    'Windows/Setup/',
    'Windows/Setup/Scripts/',
    'Windows/Setup/Scripts/SetupComplete.cmd',
  ]);
  assert.ok(readFileSync(join(image, base, 'kiln.exe')).equals(readFileSync(exe)), 'kiln.exe is the running binary');
  for (const conf of ['cloudbase-init.conf', 'cloudbase-init-unattend.conf', 'Unattend.xml']) {
    assert.equal(
      readFileSync(join(image, base, 'conf', conf), 'utf8'),
      readFileSync(join(REPO, 'images/windows', conf), 'utf8'),
      conf,
    );
  }
  const key = 'HKLM\\System\\CurrentControlSet\\Services\\cloudbase-init';
  assert.equal(wineRegQuery(prefix, key, 'Start'), 'REG_DWORD 0x3');
  assert.equal(wineRegQuery(prefix, key, 'ObjectName'), 'REG_SZ LocalSystem');
  assert.match(
    wineRegQuery(prefix, key, 'ImagePath') ?? '',
    /^REG_SZ "Z:\\.*\\image\\Program Files\\Cloudbase Solutions\\Cloudbase-Init\\kiln\.exe" service run --config-file "Z:\\.*\\Cloudbase-Init\\conf\\cloudbase-init\.conf"$/,
  );

  r = runUnderWine(exe, ['--root', root, 'uninstall'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /removed service cloudbase-init/);
  assert.equal(wineRegQuery(prefix, key, 'ImagePath'), undefined);
  // The folders Windows' own layout has (Program Files, Windows\Setup\Scripts) stay; nothing of kiln's does.
  assert.deepEqual(tree(image), [
    'Program Files/',
    'Program Files/Cloudbase Solutions/',
    'Windows/',
    'Windows/Setup/',
    'Windows/Setup/Scripts/',
  ]);

  // Uninstalled by the installed copy itself: Windows will not delete a running executable, so that one stays.
  assert.equal(runUnderWine(exe, ['--root', root, 'install'], env).code, 0);
  r = runUnderWine(join(image, base, 'kiln.exe'), ['--root', root, 'uninstall'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^kept Z:.*\\kiln\.exe: it is running now; delete it once this command has ended$/m);
  assert.deepEqual(tree(image), [
    'Program Files/',
    'Program Files/Cloudbase Solutions/',
    `${base}/`,
    `${base}/kiln.exe`,
    'Windows/',
    'Windows/Setup/',
    'Windows/Setup/Scripts/',
  ]);
  spawnSync('wineserver', ['-k'], { env: { ...process.env, WINEPREFIX: prefix } });
});
