import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildFacts } from '../../src/build-info';
import {
  ENABLED_UNITS,
  HOOK_HOTPLUG_DIRS,
  InstallRefusedError,
  SINGLE_PROCESS_MARKER,
  SINGLE_PROCESS_MARKER_TEXT,
  installLinux,
  uninstallLinux,
} from '../../src/install/linux-install';
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

async function install(platform: Platform, opts: { enable?: boolean; replace?: boolean } = {}): Promise<string[]> {
  const said: string[] = [];
  await installLinux({
    platform,
    files,
    binary: async () => BINARY,
    enable: opts.enable ?? true,
    replace: opts.replace ?? false,
    say: (l) => said.push(l),
  });
  return said;
}

async function uninstall(platform: Platform): Promise<string[]> {
  const said: string[] = [];
  await uninstallLinux({ platform, files, say: (l) => said.push(l) });
  return said;
}

/** PLATFORM (a sandbox) seen as if its root were '/': every read still goes to the sandbox. */
function seenAsLive(platform: LinuxPlatform): Platform {
  const live = new Proxy(platform, {
    get: (target, key) => (key === 'root' ? '/' : (Reflect.get(target, key) as unknown)),
  }) as Platform;
  for (const [name, value] of Object.entries(Object.getOwnPropertyDescriptors(LinuxPlatform.prototype))) {
    if (typeof value.value === 'function' && name !== 'constructor')
      (live as unknown as Record<string, unknown>)[name] = (value.value as (...a: unknown[]) => unknown).bind(platform);
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
  const r = spawnSync(join(root, 'usr/lib/systemd/system-generators/cloud-init-generator'), [out, out, out], {
    env: { ...process.env, KILN_GENERATOR_ROOT: root },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(
    existsSync(join(root, 'run/cloud-init/enabled')),
    readFileSync(join(root, 'run/cloud-init/cloud-init-generator.log'), 'utf8'),
  );
  rmSync(join(root, 'run'), { recursive: true });
  const wants = join(out, 'multi-user.target.wants');
  return existsSync(wants) ? readdirSync(wants).map((n) => `${n} -> ${readlinkSync(join(wants, n))}`) : [];
}

test("install puts the binary, its names, the units, the generator and hook-hotplug in place and enables cloud-init-main.service, the four stage units and the hotplug socket by links, as Debian 13's package does", async (t) => {
  const { root, platform } = sandbox(t);
  const before = tree(root);
  await install(platform);
  assert.deepEqual(readFileSync(join(root, 'usr/bin/kiln')), Buffer.from(BINARY));
  assert.equal(statSync(join(root, 'usr/bin/kiln')).mode & 0o7777, 0o755);
  assert.equal(readlinkSync(join(root, 'usr/bin/cloud-init')), 'kiln');
  assert.equal(readlinkSync(join(root, 'usr/bin/cloud-id')), 'kiln');
  assert.equal(
    readFileSync(join(root, 'usr/lib/systemd/system/cloud-init-main.service'), 'utf8'),
    text('cloud-init-main.service'),
  );
  assert.equal(readFileSync(join(root, 'usr/lib/cloud-init/hook-hotplug'), 'utf8'), text('hook-hotplug'));
  assert.equal(statSync(join(root, 'usr/lib/systemd/system-generators/cloud-init-generator')).mode & 0o7777, 0o755);
  const added = tree(root).filter((l) => !before.includes(l));
  assert.deepEqual(added, [
    // cloud-init 25.1's socket is wanted by cloud-config.target (after the init stages), no longer cloud-init.target.
    '/etc/systemd/system/cloud-config.target.wants/cloud-init-hotplugd.socket -> /usr/lib/systemd/system/cloud-init-hotplugd.socket',
    '/etc/systemd/system/cloud-init.target.wants/cloud-config.service -> /usr/lib/systemd/system/cloud-config.service',
    '/etc/systemd/system/cloud-init.target.wants/cloud-final.service -> /usr/lib/systemd/system/cloud-final.service',
    '/etc/systemd/system/cloud-init.target.wants/cloud-init-local.service -> /usr/lib/systemd/system/cloud-init-local.service',
    '/etc/systemd/system/cloud-init.target.wants/cloud-init-main.service -> /usr/lib/systemd/system/cloud-init-main.service',
    '/etc/systemd/system/cloud-init.target.wants/cloud-init-network.service -> /usr/lib/systemd/system/cloud-init-network.service',
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
    '/usr/lib/systemd/system/cloud-init-main.service 644',
    '/usr/lib/systemd/system/cloud-init-network.service 644',
    '/usr/lib/systemd/system/cloud-init.target 644',
    '/usr/lib/systemd/system-generators/cloud-init-generator 755',
  ]);
  if (need(t, hasCommand('systemctl'), 'systemctl is not installed (it checks the enable links)')) {
    for (const unit of ENABLED_UNITS) assert.equal(isEnabled(root, unit), 'enabled', unit);
    // No [Install] section: its socket starts it, as with Debian's package.
    assert.equal(isEnabled(root, 'cloud-init-hotplugd.service'), 'static');
  }
  // The generator pulls cloud-init.target (which wants cloud-init-main.service, the four units and the socket) into the
  // boot.
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

test("install over an older kiln's takes out its cloud-init.service and kiln-all-stages.service (with their links) and its single-process marker; another's files stay", async (t) => {
  const { root, platform } = sandbox(t);
  const before = tree(root);
  const old = (unit: string, wanted: string) => {
    writeFileSync(
      join(root, 'usr/lib/systemd/system', unit),
      `# kiln as cloud-init, an older unit\n[Service]\nExecStart=/usr/bin/cloud-init init\n[Install]\nWantedBy=${wanted}\n`,
    );
    mkdirSync(join(root, `etc/systemd/system/${wanted}.wants`), { recursive: true });
    symlinkSync(`/usr/lib/systemd/system/${unit}`, join(root, `etc/systemd/system/${wanted}.wants/${unit}`));
  };
  mkdirSync(join(root, 'usr/lib/systemd/system'), { recursive: true });
  mkdirSync(join(root, 'etc/cloud'), { recursive: true });
  const withCloudDir = tree(root);
  old('cloud-init.service', 'cloud-init.target');
  old('kiln-all-stages.service', 'multi-user.target');
  writeFileSync(join(root, SINGLE_PROCESS_MARKER), SINGLE_PROCESS_MARKER_TEXT);
  const said = await install(platform);
  assert.ok(
    said.includes(
      "removed /usr/lib/systemd/system/cloud-init.service: an older kiln's unit (cloud-init 25.1 runs the stages from cloud-init-main.service)",
    ),
    said.join('\n'),
  );
  for (const gone of [
    'usr/lib/systemd/system/cloud-init.service',
    'usr/lib/systemd/system/kiln-all-stages.service',
    'etc/systemd/system/cloud-init.target.wants/cloud-init.service',
    'etc/systemd/system/multi-user.target.wants/kiln-all-stages.service',
    SINGLE_PROCESS_MARKER,
  ]) {
    assert.ok(
      !existsSync(join(root, gone)) && !lstatSync(join(root, gone), { throwIfNoEntry: false }),
      `${gone} removed`,
    );
  }
  await uninstall(platform);
  assert.deepEqual(tree(root), withCloudDir);
  assert.ok(before.every((l) => withCloudDir.includes(l)));

  // A unit of that name that is not kiln's, and the administrator's marker, stay.
  const { root: other, platform: otherPlatform } = sandbox(t);
  mkdirSync(join(other, 'usr/lib/systemd/system'), { recursive: true });
  mkdirSync(join(other, 'etc/cloud'), { recursive: true });
  writeFileSync(join(other, 'usr/lib/systemd/system/cloud-init.service'), '[Service]\nExecStart=/usr/local/bin/mine\n');
  writeFileSync(join(other, SINGLE_PROCESS_MARKER), '');
  await install(otherPlatform, { enable: false });
  assert.equal(
    readFileSync(join(other, 'usr/lib/systemd/system/cloud-init.service'), 'utf8'),
    '[Service]\nExecStart=/usr/local/bin/mine\n',
  );
  assert.equal(readFileSync(join(other, SINGLE_PROCESS_MARKER), 'utf8'), '', "the administrator's marker");
});

test("install refuses where Debian's cloud-init is installed, and writes nothing", async (t) => {
  const { root, platform } = sandbox(t);
  mkdirSync(join(root, 'var/lib/dpkg'), { recursive: true });
  writeFileSync(
    join(root, 'var/lib/dpkg/status'),
    'Package: cloud-init\nStatus: install ok installed\nVersion: 22.4.2-1\n',
  );
  const before = tree(root);
  await assert.rejects(
    install(platform),
    (err: Error) =>
      err instanceof InstallRefusedError &&
      /dpkg lists the cloud-init package as installed.*--replace/.test(err.message),
  );
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
  assert.deepEqual(
    effects.filter((e) => e.startsWith('would run ')),
    [
      'would run dpkg-divert --local --rename --divert /usr/bin/cloud-init.distrib --add /usr/bin/cloud-init',
      'would run dpkg-divert --local --rename --divert /usr/bin/cloud-id.distrib --add /usr/bin/cloud-id',
    ],
  );
  assert.ok(
    effects.includes(
      `would write /etc/systemd/system/cloud-init-network.service (${Buffer.byteLength(text('cloud-init-network.service'))} bytes, mode 0644)`,
    ),
    effects.join('\n'),
  );
  assert.ok(
    effects.includes(
      `would write /etc/systemd/system-generators/cloud-init-generator (${Buffer.byteLength(text('cloud-init-generator'))} bytes, mode 0755)`,
    ),
  );
  assert.ok(
    effects.includes(
      'would symlink /etc/systemd/system/cloud-init.target.wants/cloud-init-network.service -> /etc/systemd/system/cloud-init-network.service',
    ),
  );
  assert.ok(!effects.some((e) => e.includes('/usr/lib/systemd')), effects.join('\n'));
});

test('on a live system systemctl enables and reloads, through the Platform (so --dry-run prints it)', async (t) => {
  const { platform } = sandbox(t);
  const live = seenAsLive(platform);
  const dry = new DryRunPlatform(live);
  await install(dry);
  assert.deepEqual(dry.effects.filter((e) => e.kind === 'run').map(describeEffect), [
    'would run systemctl daemon-reload',
    `would run systemctl enable ${ENABLED_UNITS.join(' ')}`,
  ]);
  assert.ok(!dry.effects.some((e) => e.kind === 'symlink' && e.path.includes('.wants')));
});

test("uninstall after --replace keeps the package's own enable links, also on a live system (no systemctl disable)", async (t) => {
  const { root, platform } = sandbox(t);
  mkdirSync(join(root, 'var/lib/dpkg'), { recursive: true });
  writeFileSync(join(root, 'var/lib/dpkg/status'), 'Package: cloud-init\nStatus: install ok installed\n');
  mkdirSync(join(root, 'etc/systemd/system/cloud-init.target.wants'), { recursive: true });
  symlinkSync(
    '/lib/systemd/system/cloud-init.service',
    join(root, 'etc/systemd/system/cloud-init.target.wants/cloud-init.service'),
  );
  symlinkSync(
    '/lib/systemd/system/cloud-config.service',
    join(root, 'etc/systemd/system/cloud-init.target.wants/cloud-config.service'),
  );
  mkdirSync(join(root, 'usr/lib/cloud-init'), { recursive: true });
  writeFileSync(join(root, 'usr/lib/cloud-init/hook-hotplug'), "#!/bin/bash\n# the package's\n", { mode: 0o755 });
  // Debian 12's cloud-init 22.4 ships cloud-init.service, the network stage before it was renamed.
  mkdirSync(join(root, 'lib/systemd/system'), { recursive: true });
  writeFileSync(join(root, 'lib/systemd/system/cloud-init.service'), '[Service]\nExecStart=/usr/bin/cloud-init init\n');
  const before = tree(root);
  const said = await install(platform, { replace: true });
  assert.ok(
    said.includes("masked cloud-init.service (the package's network stage): cloud-init-main.service runs every stage"),
    said.join('\n'),
  );
  assert.equal(readlinkSync(join(root, 'etc/systemd/system/cloud-init.service')), '/dev/null');
  assert.ok(
    said.includes(
      "kept /usr/lib/cloud-init/hook-hotplug: it is not kiln's (Debian's cloud-init package ships one that does the same)",
    ),
    said.join('\n'),
  );
  assert.equal(readFileSync(join(root, 'usr/lib/cloud-init/hook-hotplug'), 'utf8'), "#!/bin/bash\n# the package's\n");
  assert.ok(
    said.includes(
      'kept /etc/systemd/system/cloud-init.target.wants/cloud-config.service -> /lib/systemd/system/cloud-config.service: it enables cloud-config.service already',
    ),
    said.join('\n'),
  );
  assert.equal(
    readlinkSync(join(root, 'etc/systemd/system/cloud-init.target.wants/cloud-final.service')),
    '/etc/systemd/system/cloud-final.service',
  );

  const dry = new DryRunPlatform(seenAsLive(platform));
  await uninstall(dry);
  const effects = dry.effects.map(describeEffect);
  assert.deepEqual(
    effects.filter((e) => e.startsWith('would run ')),
    ['would run systemctl daemon-reload'],
  );
  assert.ok(
    effects.includes('would remove /etc/systemd/system/cloud-init.target.wants/cloud-final.service'),
    effects.join('\n'),
  );
  assert.ok(
    !effects.includes('would remove /etc/systemd/system/cloud-init.target.wants/cloud-config.service'),
    effects.join('\n'),
  );
  assert.ok(effects.includes('would remove /etc/systemd/system/cloud-init.service'), 'the mask goes with kiln');

  await uninstall(platform);
  assert.deepEqual(tree(root), before);
});
