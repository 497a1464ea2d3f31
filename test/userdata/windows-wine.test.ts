// The built kiln-win-x64.exe under wine runs cmd user data: exit codes 1001/1002/1003 map to reboot / run again.
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/temp';
import { runUnderWine, WINE_PREFIX, wineExe } from '../helpers/wine';

function leftoverTempScripts(): string[] {
  const users = join(WINE_PREFIX, 'drive_c', 'users');
  const found: string[] = [];
  for (const u of readdirSync(users)) {
    try {
      for (const f of readdirSync(join(users, u, 'Temp'))) if (/^kiln-[0-9a-f]{32}\./.test(f)) found.push(f);
    } catch {
      /* no Temp for this user */
    }
  }
  return found;
}

const CASES: Array<{ code: number; reboot: boolean; runAgain: boolean; rc: number }> = [
  { code: 0, reboot: false, runAgain: false, rc: 0 },
  { code: 1001, reboot: true, runAgain: false, rc: 0 },
  { code: 1002, reboot: false, runAgain: true, rc: 0 },
  { code: 1003, reboot: true, runAgain: true, rc: 0 },
  { code: 7, reboot: false, runAgain: false, rc: 1 },
];

test('cmd user data runs under wine; exit codes map to reboot / run again; the temp script is removed', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  for (const c of CASES) {
    const file = join(dir, `ud-${c.code}.txt`);
    writeFileSync(file, `rem cmd\r\necho marker-${c.code}\r\nexit ${c.code}\r\n`);
    const r = runUnderWine(exe, ['devel', 'run-user-data', '--debug', file], { KILN_FACE: 'cloudbase-init' });
    assert.equal(r.code, c.rc, `exit ${c.code}: ${r.stdout}\n${r.stderr}`);
    assert.match(
      r.stdout,
      new RegExp(`script user-data \\[cmd\\]: exit ${c.code} reboot=${c.reboot} run-again=${c.runAgain}`),
    );
    assert.match(r.stdout, /launch: cmd\.exe \/c [A-Za-z]:\\.*\\kiln-[0-9a-f]{32}\.cmd/);
    assert.match(r.stdout, new RegExp(`marker-${c.code}`), 'the script really ran');
    assert.match(r.stdout, new RegExp(`plugin: reboot=${c.reboot} run-again=${c.runAgain}`));
  }
  assert.deepEqual(leftoverTempScripts(), []);
});

test('EC2 <script> blocks run in order under wine; <persist> makes the user data persistent (every boot), apart from run-again', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const file = join(dir, 'ec2.txt');
  writeFileSync(
    file,
    '<script>\r\necho first\r\nexit 1001\r\n</script>\r\n<script>echo second</script>\r\n<persist>true</persist>\r\n',
  );
  const r = runUnderWine(exe, ['devel', 'run-user-data', file], { KILN_FACE: 'cloudbase-init' });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split(/\r?\n/);
  assert.deepEqual(lines, [
    'script user-data <script> 1 [cmd]: exit 1001 reboot=true run-again=false persist=true',
    'script user-data <script> 2 [cmd]: exit 0 reboot=false run-again=false persist=true',
    'plugin: reboot=true run-again=false persist=true',
  ]);
});
