// The built Windows binary under wine: the proof that the embedded koffi addon loads and calls Win32.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runUnderWine, wineExe } from '../helpers/wine';

test('version --long reads the Windows version through koffi (ntdll!RtlGetVersion)', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const r = runUnderWine(exe, ['version', '--long']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /target: win-x64/);
  assert.match(r.stdout, /os: Windows \d+\.\d+\.\d+/);
  assert.match(r.stdout, /os-version-source: ntdll!RtlGetVersion/);
});

test('the cloudbase-init face answers to its name', (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const r = runUnderWine(exe, ['--help'], { KILN_FACE: 'cloudbase-init' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^usage: cloudbase-init /);
  const bad = runUnderWine(exe, ['--nope']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown flag --nope/);
});
