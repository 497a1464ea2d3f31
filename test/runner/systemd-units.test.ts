import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/repo';
import { tempDir } from '../helpers/temp';

const UNITS = join(REPO, 'images/systemd');

function unit(name: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of readFileSync(join(UNITS, name), 'utf8').split('\n')) {
    const m = /^(\w+)=(.*)$/.exec(line);
    if (m) (out[m[1] as string] ??= []).push(...(m[2] as string).split(/\s+/));
  }
  return out;
}

test('the stage units run the stages in cloud-init order', () => {
  assert.deepEqual(unit('cloud-init-local.service').ExecStart, ['/usr/bin/cloud-init', 'init', '--local']);
  assert.deepEqual(unit('cloud-init.service').ExecStart, ['/usr/bin/cloud-init', 'init']);
  assert.deepEqual(unit('cloud-config.service').ExecStart, ['/usr/bin/cloud-init', 'modules', '--mode=config']);
  assert.deepEqual(unit('cloud-final.service').ExecStart, ['/usr/bin/cloud-init', 'modules', '--mode=final']);
  assert.deepEqual(unit('kiln-all-stages.service').ExecStart, ['/usr/bin/cloud-init', '--all-stages']);
  assert.ok(unit('cloud-init-local.service').Before?.includes('network-pre.target'));
  assert.ok(unit('cloud-init.service').After?.includes('cloud-init-local.service'));
  assert.ok(unit('cloud-init.service').Before?.includes('sshd.service'));
  assert.ok(unit('cloud-config.service').After?.includes('cloud-config.target'));
  assert.ok(unit('cloud-final.service').After?.includes('cloud-config.service'));
  for (const u of ['cloud-init-local.service', 'cloud-init.service', 'cloud-config.service', 'cloud-final.service', 'kiln-all-stages.service']) {
    assert.ok(unit(u).ConditionPathExists?.includes('!/etc/cloud/cloud-init.disabled'), u);
    assert.ok(unit(u).ConditionKernelCommandLine?.includes('!cloud-init=disabled'), u);
  }
});

function generator(t: Parameters<typeof tempDir>[0], setup: (root: string) => void, dsExit: number) {
  const root = tempDir(t);
  const out = tempDir(t);
  mkdirSync(join(root, 'proc'), { recursive: true });
  mkdirSync(join(root, 'etc/cloud'), { recursive: true });
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  writeFileSync(join(root, 'proc/cmdline'), 'ro quiet\n');
  const kiln = join(root, 'usr/bin/cloud-init');
  writeFileSync(kiln, `#!/bin/sh\necho "$@" > ${root}/args\n[ ${dsExit} -eq 0 ] && echo found: NoCloud || echo found: none\nexit ${dsExit}\n`);
  chmodSync(kiln, 0o755);
  setup(root);
  const r = spawnSync('sh', [join(UNITS, 'cloud-init-generator'), out, out, out], { env: { ...process.env, KILN_GENERATOR_ROOT: root }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const link = join(out, 'multi-user.target.wants/cloud-init.target');
  return { root, enabled: existsSync(join(root, 'run/cloud-init/enabled')), linked: existsSync(link) || (() => { try { return readlinkSync(link) !== ''; } catch { return false; } })() };
}

test('the generator enables kiln only when ds-identify finds a datasource and nothing disables it', (t) => {
  const found = generator(t, () => {}, 0);
  assert.equal(found.linked, true);
  assert.equal(found.enabled, true);
  assert.match(readFileSync(join(found.root, 'args'), 'utf8'), /devel ds-identify/);
  const none = generator(t, () => {}, 1);
  assert.equal(none.linked, false);
  assert.ok(existsSync(join(none.root, 'run/cloud-init/disabled')));
  const marker = generator(t, (r) => writeFileSync(join(r, 'etc/cloud/cloud-init.disabled'), ''), 0);
  assert.equal(marker.linked, false);
  assert.ok(!existsSync(join(marker.root, 'args')), 'ds-identify is not even asked');
  const kernelOff = generator(t, (r) => writeFileSync(join(r, 'proc/cmdline'), 'ro cloud-init=disabled\n'), 0);
  assert.equal(kernelOff.linked, false);
  const kernelOn = generator(t, (r) => writeFileSync(join(r, 'proc/cmdline'), 'ro cloud-init=enabled\n'), 1);
  assert.equal(kernelOn.linked, true);
});
