// The built Windows binary under wine: the proof that the embedded koffi addon loads and calls Win32.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtBinary } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { runUnderWine } from '../helpers/wine';

const exe = builtBinary('kiln-win-x64.exe');

test('version --long reads the Windows version through koffi (ntdll!RtlGetVersion)', (t) => {
  if (!need(t, exe !== undefined, 'dist/kiln-win-x64.exe is not built (npm run build)')) return;
  if (!need(t, hasCommand('wine'), 'wine is not installed (apt-get install wine wine64)')) return;
  const r = runUnderWine(exe as string, ['version', '--long']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /target: win-x64/);
  assert.match(r.stdout, /os: Windows \d+\.\d+\.\d+/);
  assert.match(r.stdout, /os-version-source: ntdll!RtlGetVersion/);
});

test('the cloudbase-init face answers to its name', (t) => {
  if (!need(t, exe !== undefined, 'dist/kiln-win-x64.exe is not built (npm run build)')) return;
  if (!need(t, hasCommand('wine'), 'wine is not installed')) return;
  const r = runUnderWine(exe as string, ['--help'], { KILN_FACE: 'cloudbase-init' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^usage: cloudbase-init /);
  const bad = runUnderWine(exe as string, ['--nope']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown flag --nope/);
});
