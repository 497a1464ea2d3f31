// The install files each target carries: the Windows answer file names that target's processor architecture, since
// Windows Setup ignores a component written for another one (an arm64 image with "amd64" components never ran kiln).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/repo';

/** Unattend.xml as build.mjs embeds it in the binary of the target NAME: what its kiln:target module holds. */
function embeddedUnattend(name: string): string {
  const script = `const m = await import(${JSON.stringify(join(REPO, 'build.mjs'))});
const target = m.loadTargets().find((t) => t.name === ${JSON.stringify(name)});
let load;
m.targetPlugin(target, { embedAddon: false }).setup({ onResolve() {}, onLoad(_filter, f) { load = f; } });
const { contents } = await load({ path: 'kiln-target', namespace: 'kiln' });
const facts = JSON.parse(contents.replace(/^export default /, '').replace(/;$/, ''));
console.log(JSON.stringify(facts.installFiles['Unattend.xml'].text));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as string;
}

function architectures(xml: string): string[] {
  return [...new Set([...xml.matchAll(/processorArchitecture="([^"]*)"/g)].map((m) => m[1] as string))];
}

test('each Windows target ships an Unattend.xml for its own processor architecture', () => {
  assert.ok(
    architectures(readFileSync(join(REPO, 'images/windows/Unattend.xml'), 'utf8')).length > 0,
    'the answer file names an architecture',
  );
  assert.deepEqual(architectures(embeddedUnattend('win-x64')), ['amd64']);
  const arm = embeddedUnattend('win-arm64');
  assert.deepEqual(architectures(arm), ['arm64']);
  // Nothing else changes.
  assert.equal(
    arm.replace(/processorArchitecture="arm64"/g, 'processorArchitecture="amd64"'),
    embeddedUnattend('win-x64'),
  );
});
