import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildFacts } from '../../src/build-info';
import { HOOK_HOTPLUG_DIRS, InstallRefusedError, SINGLE_PROCESS_MARKER, installLinux, uninstallLinux, type UnitSet } from '../../src/install/linux-install';
import { DryRunPlatform, describeEffect } from '../../src/platform/dry-run-platform';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { Platform } from '../../src/platform/platform';
import { hotplugUdevRule } from '../../src/sources/hotplug-udev-rule';
import { Logger } from '../../src/util/log';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const BINARY = new TextEncoder().encode('#!/bin/sh\necho kiln\n');
const files = buildFacts.installFiles;
const text = (name: string): string => (files[name] as { text: string }).text;

/** Every file and link under ROOT (folders left out), with a link's target and a file's mode. */
function tree(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir)).sort()) {
    const rel = `${dir}/${name}`;
    const st = lstatSync(join(root, rel));
    if (st.isDirectory()) out.push(...tree(root, rel));
    else if (st.isSymbolicLink()) out.push(`${rel} -> ${readlinkSync(join(root, rel))}`);
    else out.push(`${rel} ${(st.mode & 0o7777).toString(8)}`);
  }
  return out;
}

/** A small root with a few files of its own, which install and uninstall must leave alone. */
function sandbox(t: import('node:test').TestContext): { root: string; platform: LinuxPlatform } {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/systemd/system/multi-user.target.wants'), { recursive: true });
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  writeFileSync(join(root, 'etc/hostname'), 'image\n');
  writeFileSync(join(root, 'usr/bin/true'), '', { mode: 0o755 });
  return { root, platform: new LinuxPlatform({ root, log: new Logger().for('t') }) };
}

async function install(platform: Platform, opts: { units?: UnitSet; enable?: boolean; replace?: boolean } = {}): Promise<string[]> {
  const said: string[] = [];
  await installLinux({ platform, files, binary: async () => BINARY, units: opts.units ?? 'four', enable: opts.enable ?? true, replace: opts.replace ?? false, say: (l) => said.push(l) });
  return said;
}

async function uninstall(platform: Platform): Promise<string[]> {
  const said: string[] = [];
  await uninstallLinux({ platform, files, say: (l) => said.push(l) });
  return said;
}

/** PLATFORM (a sandbox) seen as if its root were '/': every read still goes to the sandbox. */
function seenAsLive(platform: LinuxPlatform): Platform {
  const live = new Proxy(platform, { get: (target, key) => (key === 'root' ? '/' : (Reflect.get(target, key) as unknown)) }) as Platform;
  for (const [name, value] of Object.entries(Object.getOwnPropertyDescriptors(LinuxPlatform.prototype))) {
    if (typeof value.value === 'function' && name !== 'constructor') (live as unknown as Record<string, unknown>)[name] = (value.value as (...a: unknown[]) => unknown).bind(platform);
  }
  return live;
}

function isEnabled(root: string, unit: string): string {
  return spawnSync('systemctl', ['--root', root, 'is-enabled', unit], { encoding: 'utf8' }).stdout.trim();
}

/**
 * Runs the generator install put into ROOT as systemd would at boot, with ROOT as its root (the installed
 * cloud-init name answers ds-identify: the test binary exits 0, "a datasource may be present"); returns what it
 * linked into multi-user.target.wants, and takes away what it wrote in ROOT's /run.
 */
function generatorLinks(t: import('node:test').TestContext, root: string): string[] {
  const out = tempDir(t);
  const r = spawnSync(join(root, 'usr/lib/systemd/system-generators/cloud-init-generator'), [out, out, out], { env: { ...process.env, KILN_GENERATOR_ROOT: root }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(join(root, 'run/cloud-init/enabled')), readFileSync(join(root, 'run/cloud-init/cloud-init-generator.log'), 'utf8'));
  rmSync(join(root, 'run'), { recursive: true });
  const wants = join(out, 'multi-user.target.wants');
  return existsSync(wants) ? readdirSync(wants).map((n) => `${n} -> ${readlinkSync(join(wants, n))}`) : [];
}

test('install puts the binary, its names, the units, the generator and hook-hotplug in place and enables the four stages and the hotplug socket by links', async (t) => {
  const { root, platform } = sandbox(t);
  const before = tree(root);
  await install(platform);
  assert.deepEqual(readFileSync(join(root, 'usr/bin/kiln')), Buffer.from(BINARY));
  assert.equal(statSync(join(root, 'usr/bin/kiln')).mode & 0o7777, 0o755);
  assert.equal(readlinkSync(join(root, 'usr/bin/cloud-init')), 'kiln');
  assert.equal(readlinkSync(join(root, 'usr/bin/cloud-id')), 'kiln');
  assert.equal(readFileSync(join(root, 'usr/lib/systemd/system/cloud-init.service'), 'utf8'), text('cloud-init.service'));
  assert.equal(readFileSync(join(root, 'usr/lib/cloud-init/hook-hotplug'), 'utf8'), text('hook-hotplug'));
  assert.equal(statSync(join(root, 'usr/lib/systemd/system-generators/cloud-init-generator')).mode & 0o7777, 0o755);
  const added = tree(root).filter((l) => !before.includes(l));
  assert.deepEqual(added, [
    '/etc/systemd/system/cloud-init.target.wants/cloud-config.service -> /usr/lib/systemd/system/cloud-config.service',
    '/etc/systemd/system/cloud-init.target.wants/cloud-final.service -> /usr/lib/systemd/system/cloud-final.service',
    '/etc/systemd/system/cloud-init.target.wants/cloud-init-hotplugd.socket -> /usr/lib/systemd/system/cloud-init-hotplugd.socket',
    '/etc/systemd/system/cloud-init.target.wants/cloud-init-local.service -> /usr/lib/systemd/system/cloud-init-local.service',
    '/etc/systemd/system/cloud-init.target.wants/cloud-init.service -> /usr/lib/systemd/system/cloud-init.service',
    '/usr/bin/cloud-id -> kiln',
    '/usr/bin/cloud-init -> kiln',
    '/usr/bin/kiln 755',
    '/usr/lib/cloud-init/hook-hotplug 755',
    '/usr/lib/systemd/system/cloud-config.service 644',
    '/usr/lib/systemd/system/cloud-config.target 644',
    '/usr/lib/systemd/system/cloud-final.service 644',
    '/usr/lib/systemd/system/cloud-init-hotplugd.service 644',
    '/usr/lib/systemd/system/cloud-init-hotplugd.socket 644',
    '/usr/lib/systemd/system/cloud-init-local.service 644',
    '/usr/lib/systemd/system/cloud-init.service 644',
    '/usr/lib/systemd/system/cloud-init.target 644',
    '/usr/lib/systemd/system/kiln-all-stages.service 644',
    '/usr/lib/systemd/system-generators/cloud-init-generator 755',
  ]);
  if (need(t, hasCommand('systemctl'), 'systemctl is not installed (it checks the enable links)')) {
    for (const unit of ['cloud-init-local.service', 'cloud-init.service', 'cloud-config.service', 'cloud-final.service', 'cloud-init-hotplugd.socket']) assert.equal(isEnabled(root, unit), 'enabled', unit);
    // No [Install] section: its socket starts it, as with Debian's package.
    assert.equal(isEnabled(root, 'cloud-init-hotplugd.service'), 'static');
    assert.equal(isEnabled(root, 'kiln-all-stages.service'), 'disabled');
  }
  // The generator pulls cloud-init.target (which wants the four units and the socket) into the boot.
  assert.deepEqual(generatorLinks(t, root), ['cloud-init.target -> /lib/systemd/system/cloud-init.target']);
  await uninstall(platform);
  assert.deepEqual(tree(root), before);
});

test('hook-hotplug goes to /usr/libexec/cloud-init where that folder exists, as the install_hotplug rule then names it there', async (t) => {
  const { root, platform } = sandbox(t);
  mkdirSync(join(root, 'usr/libexec/cloud-init'), { recursive: true });
  const before = tree(root);
  await install(platform, { enable: false });
  assert.equal(statSync(join(root, 'usr/libexec/cloud-init/hook-hotplug')).mode & 0o7777, 0o755);
  assert.ok(!existsSync(join(root, 'usr/lib/cloud-init/hook-hotplug')));
  assert.match(hotplugUdevRule(HOOK_HOTPLUG_DIRS[0]), /RUN\+="\/usr\/libexec\/cloud-init\/hook-hotplug"/);
  await uninstall(platform);
  assert.deepEqual(tree(root), before);
});

test("a hook-hotplug left there without Debian's package (an older kiln's) is replaced, as the units are", async (t) => {
  const { root, platform } = sandbox(t);
  mkdirSync(join(root, 'usr/lib/cloud-init'), { recursive: true });
  writeFileSync(join(root, 'usr/lib/cloud-init/hook-hotplug'), '#!/bin/sh\n# an older one\n', { mode: 0o644 });
  await install(platform, { enable: false });
  assert.equal(readFileSync(join(root, 'usr/lib/cloud-init/hook-hotplug'), 'utf8'), text('hook-hotplug'));
  assert.equal(statSync(join(root, 'usr/lib/cloud-init/hook-hotplug')).mode & 0o7777, 0o755);
});

test('--units all-stages enables kiln-all-stages.service into multi-user.target instead, and the generator links it, not cloud-init.target; --no-enable links nothing', async (t) => {
  const { root, platform } = sandbox(t);
  const before = tree(root);
  const said = await install(platform, { units: 'all-stages' });
  assert.ok(said.includes(`wrote ${SINGLE_PROCESS_MARKER}: the generator enables kiln-all-stages.service instead of cloud-init.target`), said.join('\n'));
  assert.equal(readlinkSync(join(root, 'etc/systemd/system/multi-user.target.wants/kiln-all-stages.service')), '/usr/lib/systemd/system/kiln-all-stages.service');
  assert.deepEqual(readdirSync(join(root, 'etc/systemd/system')), ['multi-user.target.wants']);
  assert.ok(existsSync(join(root, SINGLE_PROCESS_MARKER)));
  if (need(t, hasCommand('systemctl'), 'systemctl is not installed (it checks the enable links)')) {
    assert.equal(isEnabled(root, 'kiln-all-stages.service'), 'enabled');
    assert.equal(isEnabled(root, 'cloud-init.service'), 'disabled');
    assert.equal(isEnabled(root, 'cloud-init-hotplugd.socket'), 'disabled');
  }
  assert.deepEqual(generatorLinks(t, root), ['kiln-all-stages.service -> /lib/systemd/system/kiln-all-stages.service']);
  await uninstall(platform);
  assert.deepEqual(tree(root), before);
  // The folder that was there before install stays, even empty.
  assert.deepEqual(readdirSync(join(root, 'etc/systemd/system')), ['multi-user.target.wants']);

  await install(platform, { units: 'all-stages', enable: false });
  assert.ok(!existsSync(join(root, SINGLE_PROCESS_MARKER)), 'nothing enables kiln-all-stages.service at boot either');
  assert.deepEqual(readdirSync(join(root, 'etc/systemd/system')), ['multi-user.target.wants']);
  assert.deepEqual(readdirSync(join(root, 'etc/systemd/system/multi-user.target.wants')), []);
  await uninstall(platform);
  assert.deepEqual(tree(root), before);

  // An install of the four units over one of all stages takes kiln's marker away again; another's stays.
  const { root: other, platform: otherPlatform } = sandbox(t);
  await install(otherPlatform, { units: 'all-stages' });
  await install(otherPlatform);
  assert.ok(!existsSync(join(other, SINGLE_PROCESS_MARKER)));
  assert.deepEqual(generatorLinks(t, other), ['cloud-init.target -> /lib/systemd/system/cloud-init.target']);
  writeFileSync(join(other, SINGLE_PROCESS_MARKER), '');
  await install(otherPlatform);
  await uninstall(otherPlatform);
  assert.equal(readFileSync(join(other, SINGLE_PROCESS_MARKER), 'utf8'), '', "the administrator's marker");
});

test("install refuses where Debian's cloud-init is installed, and writes nothing", async (t) => {
  const { root, platform } = sandbox(t);
  mkdirSync(join(root, 'var/lib/dpkg'), { recursive: true });
  writeFileSync(join(root, 'var/lib/dpkg/status'), 'Package: cloud-init\nStatus: install ok installed\nVersion: 22.4.2-1\n');
  const before = tree(root);
  await assert.rejects(install(platform), (err: Error) => err instanceof InstallRefusedError && /dpkg lists the cloud-init package as installed.*--replace/.test(err.message));
  assert.deepEqual(tree(root), before);

  const { root: other, platform: otherPlatform } = sandbox(t);
  writeFileSync(join(other, 'usr/bin/cloud-init'), '#!/usr/bin/python3\n# pip-installed\n', { mode: 0o755 });
  await assert.rejects(install(otherPlatform), /\/usr\/bin\/cloud-init is a Python script/);
});

test("--replace diverts the package's names with dpkg-divert and puts kiln's units in /etc, where they take precedence", async (t) => {
  const { root } = sandbox(t);
  mkdirSync(join(root, 'var/lib/dpkg'), { recursive: true });
  writeFileSync(join(root, 'var/lib/dpkg/status'), 'Package: cloud-init\nStatus: install ok installed\n');
  writeFileSync(join(root, 'usr/bin/cloud-init'), '#!/usr/bin/python3\n', { mode: 0o755 });
  writeFileSync(join(root, 'usr/bin/cloud-id'), '#!/usr/bin/python3\n', { mode: 0o755 });
  const dry = new DryRunPlatform(new LinuxPlatform({ root, log: new Logger().for('t') }));
  const said = await install(dry, { replace: true });
  assert.match(said[0] as string, /^replacing Debian's cloud-init \(dpkg lists/);
  const effects = dry.effects.map(describeEffect);
  assert.deepEqual(effects.filter((e) => e.startsWith('would run ')), [
    'would run dpkg-divert --local --rename --divert /usr/bin/cloud-init.distrib --add /usr/bin/cloud-init',
    'would run dpkg-divert --local --rename --divert /usr/bin/cloud-id.distrib --add /usr/bin/cloud-id',
  ]);
  assert.ok(effects.includes('would write /etc/systemd/system/cloud-init.service (' + Buffer.byteLength(text('cloud-init.service')) + ' bytes, mode 0644)'), effects.join('\n'));
  assert.ok(effects.includes('would write /etc/systemd/system-generators/cloud-init-generator (' + Buffer.byteLength(text('cloud-init-generator')) + ' bytes, mode 0755)'));
  assert.ok(effects.includes('would symlink /etc/systemd/system/cloud-init.target.wants/cloud-init.service -> /etc/systemd/system/cloud-init.service'));
  assert.ok(!effects.some((e) => e.includes('/usr/lib/systemd')), effects.join('\n'));
});

test('on a live system systemctl enables and reloads, through the Platform (so --dry-run prints it)', async (t) => {
  const { platform } = sandbox(t);
  const live = seenAsLive(platform);
  const dry = new DryRunPlatform(live);
  await install(dry, { units: 'all-stages' });
  assert.deepEqual(dry.effects.filter((e) => e.kind === 'run').map(describeEffect), ['would run systemctl daemon-reload', 'would run systemctl enable kiln-all-stages.service']);
  assert.ok(!dry.effects.some((e) => e.kind === 'symlink' && e.path.includes('.wants')));
});

test("uninstall after --replace keeps the package's own enable links, also on a live system (no systemctl disable)", async (t) => {
  const { root, platform } = sandbox(t);
  mkdirSync(join(root, 'var/lib/dpkg'), { recursive: true });
  writeFileSync(join(root, 'var/lib/dpkg/status'), 'Package: cloud-init\nStatus: install ok installed\n');
  mkdirSync(join(root, 'etc/systemd/system/cloud-init.target.wants'), { recursive: true });
  symlinkSync('/lib/systemd/system/cloud-init.service', join(root, 'etc/systemd/system/cloud-init.target.wants/cloud-init.service'));
  mkdirSync(join(root, 'usr/lib/cloud-init'), { recursive: true });
  writeFileSync(join(root, 'usr/lib/cloud-init/hook-hotplug'), '#!/bin/bash\n# the package\'s\n', { mode: 0o755 });
  const before = tree(root);
  const said = await install(platform, { replace: true });
  assert.ok(said.includes("kept /usr/lib/cloud-init/hook-hotplug: it is not kiln's (Debian's cloud-init package ships one that does the same)"), said.join('\n'));
  assert.equal(readFileSync(join(root, 'usr/lib/cloud-init/hook-hotplug'), 'utf8'), "#!/bin/bash\n# the package's\n");
  assert.ok(said.includes('kept /etc/systemd/system/cloud-init.target.wants/cloud-init.service -> /lib/systemd/system/cloud-init.service: it enables cloud-init.service already'), said.join('\n'));
  assert.equal(readlinkSync(join(root, 'etc/systemd/system/cloud-init.target.wants/cloud-final.service')), '/etc/systemd/system/cloud-final.service');

  const dry = new DryRunPlatform(seenAsLive(platform));
  await uninstall(dry);
  const effects = dry.effects.map(describeEffect);
  assert.deepEqual(effects.filter((e) => e.startsWith('would run ')), ['would run systemctl daemon-reload']);
  assert.ok(effects.includes('would remove /etc/systemd/system/cloud-init.target.wants/cloud-final.service'), effects.join('\n'));
  assert.ok(!effects.includes('would remove /etc/systemd/system/cloud-init.target.wants/cloud-init.service'), effects.join('\n'));

  await uninstall(platform);
  assert.deepEqual(tree(root), before);
});
