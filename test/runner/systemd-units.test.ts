// kiln's systemd units and generator (images/systemd/) against Debian 13's cloud-init 25.1 package.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { REPO } from '../helpers/repo';
import { need } from '../helpers/requirements';
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

/** Every directive of a unit file as `Section.Key=value` (space-separated lists as one line per item), sorted. */
function directives(text: string): string[] {
  const out: string[] = [];
  let section = '';
  for (const line of text.replace(/\\\n\s*/g, ' ').split('\n')) {
    const header = /^\[(\w+)\]$/.exec(line.trim());
    if (header) section = header[1] as string;
    const m = /^(\w+)=(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1] as string;
    const list = /^(After|Before|Wants|Requires|Conflicts|WantedBy)$/.test(key);
    for (const value of list ? (m[2] as string).split(/\s+/) : [(m[2] as string).trim()])
      out.push(`${section}.${key}=${value}`);
  }
  return out.sort();
}

const trixie = (() => {
  try {
    return ensureDebianRootfs('trixie');
  } catch {
    return undefined;
  }
})();
const TRIXIE_UNITS = trixie && join(trixie, 'lib/systemd/system');

/**
 * The units of Debian 13's cloud-init package (cloud-init 25.1.4), as its .list names them. Not its drop-in for
 * sshd-keygen@.service (a Fedora/RHEL unit Debian does not have; kiln ships no drop-ins).
 */
function packageUnits(): string[] {
  const list = readFileSync(join(trixie as string, 'var/lib/dpkg/info/cloud-init.list'), 'utf8').split('\n');
  return list
    .filter((l) => /^\/(usr\/)?lib\/systemd\/system\/[^/]+\.(service|socket|target)$/.test(l))
    .map((l) => l.replace(/^.*\//, ''))
    .sort();
}

test("the units are those of Debian 13's cloud-init 25.1 package: the same names, and the same ordering, dependencies, conditions and service settings", (t) => {
  if (
    !need(
      t,
      trixie !== undefined,
      'the trixie rootfs with cloud-init 25.1.4 is not cached (test/helpers/debian-rootfs.ts)',
    )
  )
    return;
  const ours = readdirSync(UNITS)
    .filter((f) => /\.(service|socket|target)$/.test(f))
    .sort();
  assert.deepEqual(ours, [...new Set(packageUnits())].sort());
  for (const name of ours) {
    const theirs = directives(readFileSync(join(TRIXIE_UNITS as string, name), 'utf8'));
    let mine = directives(readFileSync(join(UNITS, name), 'utf8'));
    if (name === 'cloud-init-hotplugd.service') {
      // The same script: kiln's runs it with sh, Debian's with bash (nothing in it needs bash).
      const exec = (l: string[]) =>
        l
          .filter((d) => d.startsWith('Service.ExecStart='))
          .map((d) => d.replace(/^Service\.ExecStart=\/bin\/(ba)?sh -c /, '').replace(/\s+/g, ' '));
      assert.deepEqual(exec(mine), exec(theirs), name);
      mine = mine.filter((d) => !d.startsWith('Service.ExecStart='));
      assert.deepEqual(
        mine,
        theirs.filter((d) => !d.startsWith('Service.ExecStart=')),
        name,
      );
      continue;
    }
    assert.deepEqual(mine, theirs, name);
  }
});

test("the stage units start their stage in cloud-init-main.service's process over the stage sockets; it runs --all-stages and tells systemd when it is ready", () => {
  assert.equal(unit('cloud-init-main.service').Type?.[0], 'notify');
  assert.deepEqual(unit('cloud-init-main.service').ExecStart, ['/usr/bin/cloud-init', '--all-stages']);
  assert.ok(unit('cloud-init-main.service').Before?.includes('cloud-init-local.service'));
  for (const [u, name] of [
    ['cloud-init-local.service', 'local'],
    ['cloud-init-network.service', 'network'],
    ['cloud-config.service', 'config'],
    ['cloud-final.service', 'final'],
  ] as const) {
    assert.equal(
      unit(u).ExecStart?.join(' '),
      `sh -c 'echo "start" | nc -Uu -W1 /run/cloud-init/share/${name}.sock -s /run/cloud-init/share/${name}-return.sock | sh'`,
      u,
    );
    assert.ok(unit(u).ConditionPathExists?.includes('!/etc/cloud/cloud-init.disabled'), u);
    assert.ok(unit(u).ConditionKernelCommandLine?.includes('!cloud-init=disabled'), u);
  }
  assert.ok(unit('cloud-init-network.service').After?.includes('cloud-init-local.service'));
  assert.ok(unit('cloud-config.target').After?.includes('cloud-init-network.service'));
  assert.ok(!existsSync(join(UNITS, 'cloud-init.service')), 'cloud-init 24.3 renamed it cloud-init-network.service');
});

function generator(t: Parameters<typeof tempDir>[0], setup: (root: string) => void, dsExit: number) {
  const root = tempDir(t);
  const out = tempDir(t);
  mkdirSync(join(root, 'proc'), { recursive: true });
  mkdirSync(join(root, 'etc/cloud'), { recursive: true });
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  writeFileSync(join(root, 'proc/cmdline'), 'ro quiet\n');
  const kiln = join(root, 'usr/bin/cloud-init');
  writeFileSync(
    kiln,
    `#!/bin/sh\necho "$@" > ${root}/args\n[ ${dsExit} -eq 0 ] && echo found: NoCloud || echo found: none\nexit ${dsExit}\n`,
  );
  chmodSync(kiln, 0o755);
  setup(root);
  const early = tempDir(t);
  const r = spawnSync('sh', [join(UNITS, 'cloud-init-generator'), out, early, out], {
    env: { ...process.env, KILN_GENERATOR_ROOT: root },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  // As cloud-init 25.1's generator: in the early folder (systemd's second argument), never the normal one.
  assert.ok(!existsSync(join(out, 'multi-user.target.wants')), 'nothing in the normal folder');
  const link = join(early, 'multi-user.target.wants/cloud-init.target');
  return {
    root,
    enabled: existsSync(join(root, 'run/cloud-init/enabled')),
    linked:
      existsSync(link) ||
      (() => {
        try {
          return readlinkSync(link) !== '';
        } catch {
          return false;
        }
      })(),
  };
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
