// The amd64 .deb installed by apt, from the file alone (no archive, no network), into a copy of the Debian rootfs that
// has Debian's cloud-init: cloud-init is replaced without a diversion, systemctl and kiln check agree the units are
// enabled, a later purge of the replaced package leaves them enabled, Python can go, and remove/purge of kiln
// leave what Debian's cloud-init package leaves.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { KILN_CLOUD_INIT_VERSION } from '../../src/build-info';
import { ENABLED_UNITS } from '../../src/install/linux-install';
import { copyRootfs } from '../helpers/debian-rootfs';
import { buildDebForTest, netcatOpenbsdDeb } from '../helpers/deb-package';
import { builtBinary, REPO } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const binary = builtBinary('kiln-linux-x64');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** apt with the archive's sources switched off: only the .deb named on its command line can be installed. */
const APT = 'apt-get -q -y -o Dpkg::Use-Pty=0 -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=/dev/null';

/** SCRIPT run by sh in ROOT, chrooted in namespaces of its own (no network: nothing can be fetched). */
function inRoot(root: string, script: string): { code: number | null; out: string } {
  const r = spawnSync(
    'unshare',
    [
      '--uts',
      '--ipc',
      '--mount',
      '--pid',
      '--net',
      '--fork',
      '--kill-child',
      'chroot',
      root,
      '/bin/sh',
      '-c',
      `mount -t proc proc /proc && ${script}`,
    ],
    {
      encoding: 'utf8',
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', DEBIAN_FRONTEND: 'noninteractive' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600_000,
    },
  );
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

function isEnabled(root: string, unit: string): string {
  return spawnSync('systemctl', ['--root', root, 'is-enabled', unit], { encoding: 'utf8' }).stdout.trim();
}

/** dpkg's state of PKG in ROOT ('installed', 'config-files', 'not-installed'). */
function dpkgState(root: string, pkg: string): string {
  const r = inRoot(root, `dpkg-query -W -f='\${db:Status-Status}' ${pkg} 2>/dev/null || echo not-installed`);
  return r.out.trim();
}

function bootUnitFindings(root: string): unknown[] {
  const r = spawnSync(binary as string, ['check', '--root', root, '--json'], {
    encoding: 'utf8',
    env: { ...process.env, KILN_FACE: '' },
  });
  assert.ok(r.status !== null && r.status <= 2, r.stderr);
  return (JSON.parse(r.stdout) as { findings: { check: string }[] }).findings.filter((f) => f.check === 'boot-units');
}

test("apt installs the .deb in place of Debian's cloud-init; the units are enabled; Python can go; remove and purge leave what Debian's package leaves", {
  timeout: 900_000,
}, (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
  if (!need(t, process.arch === 'x64', 'installs the amd64 package into the amd64 Debian rootfs')) return;
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the Debian cloud-init rootfs',
    )
  )
    return;
  if (!need(t, hasCommand('systemctl') && hasCommand('dpkg-deb'), 'systemctl and dpkg-deb are not installed')) return;
  const dir = tempDir(t, 'kiln-deb-e2e-');
  const deb = buildDebForTest({
    target: 'linux-x64',
    binaryFile: binary as string,
    outDir: join(dir, 'out'),
    work: join(dir, 'work'),
    sourceDateEpoch: 1_700_000_000,
  });
  const root = copyRootfs(join(dir, 'root'));
  assert.equal(dpkgState(root, 'cloud-init'), 'installed');
  const diversions = readFileSync(join(root, 'var/lib/dpkg/diversions'), 'utf8');
  copyFileSync(deb, join(root, 'tmp', basename(deb)));
  const netcat = netcatOpenbsdDeb(join(dir, 'netcat'));
  copyFileSync(netcat, join(root, 'tmp', basename(netcat)));

  const installed = inRoot(root, `${APT} install /tmp/${basename(deb)} /tmp/${basename(netcat)}`);
  assert.equal(installed.code, 0, installed.out);
  assert.match(installed.out, /^The following packages will be REMOVED:\n\s+cloud-init\n/m);
  assert.equal(dpkgState(root, 'kiln'), 'installed');
  assert.equal(dpkgState(root, 'cloud-init'), 'config-files');
  // Replaced, not diverted: the names are kiln's and dpkg's diversions are as they were.
  assert.equal(readlinkSync(join(root, 'usr/bin/cloud-init')), 'kiln');
  assert.equal(readlinkSync(join(root, 'usr/bin/cloud-id')), 'kiln');
  assert.equal(readFileSync(join(root, 'var/lib/dpkg/diversions'), 'utf8'), diversions);
  assert.ok(
    !existsSync(join(root, 'usr/lib/python3/dist-packages/cloudinit')),
    "Debian's cloud-init's Python package is gone",
  );
  // The conffile Debian's package left unmodified is now kiln's default, without a question from dpkg.
  assert.equal(
    readFileSync(join(root, 'etc/cloud/cloud.cfg'), 'utf8'),
    readFileSync(join(REPO, 'src/config/defaults/cloud.cfg'), 'utf8'),
  );
  for (const unit of ENABLED_UNITS) assert.equal(isEnabled(root, unit), 'enabled', unit);
  // Debian 12's cloud-init.service is gone with its package, and so are the links that enabled it (the postinst).
  assert.ok(!existsSync(join(root, 'usr/lib/systemd/system/cloud-init.service')));
  assert.equal(
    spawnSync('find', [join(root, 'etc/systemd/system'), '-name', 'cloud-init.service'], { encoding: 'utf8' }).stdout,
    '',
  );
  assert.deepEqual(bootUnitFindings(root), []);
  const version = inRoot(root, 'cloud-init --version');
  assert.equal(version.code, 0, version.out);
  assert.ok(version.out.trim().endsWith(`cloud-init ${KILN_CLOUD_INIT_VERSION} (kiln ${VERSION})`), version.out);

  // Purging the replaced package runs its deb-systemd-helper purge of the same unit names; kiln's trigger enables them
  // again.
  const purgedOld = inRoot(root, 'dpkg --purge cloud-init');
  assert.equal(purgedOld.code, 0, purgedOld.out);
  assert.match(purgedOld.out, /Processing triggers for kiln/);
  assert.equal(dpkgState(root, 'cloud-init'), 'not-installed');
  for (const unit of ENABLED_UNITS) assert.equal(isEnabled(root, unit), 'enabled', `${unit} after purging cloud-init`);

  // No Python needed: every python3 package goes, kiln stays installed and runs.
  const python = inRoot(root, `${APT} remove 'python3*'`);
  assert.equal(python.code, 0, python.out);
  assert.match(python.out, /^Removing python3-minimal /m);
  assert.equal(
    inRoot(root, "dpkg-query -W -f='${Package} ${db:Status-Status}\\n' | grep '^python3.* installed$' || true").out,
    '',
  );
  assert.ok(!existsSync(join(root, 'usr/bin/python3')));
  assert.equal(dpkgState(root, 'kiln'), 'installed');
  assert.equal(inRoot(root, 'cloud-init --version').code, 0);
  const audit = inRoot(root, `dpkg --audit && ${APT} check`);
  assert.equal(audit.code, 0, audit.out);

  // remove leaves the config and the instance's state; purge removes what Debian's cloud-init purge removes.
  mkdirSync(join(root, 'var/lib/cloud/instances/i-1'), { recursive: true });
  writeFileSync(join(root, 'var/lib/cloud/instances/i-1/obj.pkl'), 'state\n');
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true }); // cloud-init's purge took its folder away
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90_dpkg.cfg'), 'datasource_list: [NoCloud]\n');
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/50-mine.cfg'), 'preserve_hostname: true\n');
  writeFileSync(join(root, 'etc/apt/apt.conf.d/90cloud-init-pipelining'), 'Acquire::http::Pipeline-Depth "0";\n');
  const removed = inRoot(root, 'dpkg --remove kiln');
  assert.equal(removed.code, 0, removed.out);
  assert.equal(dpkgState(root, 'kiln'), 'config-files');
  for (const gone of [
    'usr/bin/kiln',
    'usr/bin/cloud-init',
    'usr/lib/systemd/system/cloud-init-main.service',
    'usr/lib/systemd/system-generators/cloud-init-generator',
  ]) {
    assert.ok(!existsSync(join(root, gone)), `${gone} removed`);
  }
  for (const kept of [
    'etc/cloud/cloud.cfg',
    'etc/cloud/cloud.cfg.d/90_dpkg.cfg',
    'etc/cloud/cloud.cfg.d/50-mine.cfg',
    'var/lib/cloud/instances/i-1/obj.pkl',
    'etc/apt/apt.conf.d/90cloud-init-pipelining',
  ]) {
    assert.ok(existsSync(join(root, kept)), `${kept} kept by remove`);
  }
  const purged = inRoot(root, 'dpkg --purge kiln');
  assert.equal(purged.code, 0, purged.out);
  assert.equal(dpkgState(root, 'kiln'), 'not-installed');
  for (const gone of [
    'etc/cloud/cloud.cfg',
    'etc/cloud/cloud.cfg.d/90_dpkg.cfg',
    'etc/apt/apt.conf.d/90cloud-init-pipelining',
    'etc/systemd/system/cloud-init.target.wants/cloud-init-hotplugd.socket',
  ]) {
    assert.ok(!existsSync(join(root, gone)), `${gone} removed by purge`);
  }
  for (const kept of ['etc/cloud/cloud.cfg.d/50-mine.cfg', 'var/lib/cloud/instances/i-1/obj.pkl'])
    assert.ok(existsSync(join(root, kept)), `${kept} kept by purge`);
  for (const unit of ENABLED_UNITS)
    assert.ok(
      !existsSync(join(root, 'var/lib/systemd/deb-systemd-helper-enabled', `${unit}.dsh-also`)),
      `${unit}'s deb-systemd-helper state purged`,
    );
});

test("dpkg -i over an installed Debian cloud-init keeps kiln's units (the /lib names cloud-init's removal deletes are diverted meanwhile) and leaves no diversion", {
  timeout: 900_000,
}, (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
  if (!need(t, process.arch === 'x64', 'installs the amd64 package into the amd64 Debian rootfs')) return;
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the Debian cloud-init rootfs',
    )
  )
    return;
  if (!need(t, hasCommand('systemctl') && hasCommand('dpkg-deb'), 'systemctl and dpkg-deb are not installed')) return;
  const dir = tempDir(t, 'kiln-deb-dpkg-');
  const deb = buildDebForTest({
    target: 'linux-x64',
    binaryFile: binary as string,
    outDir: join(dir, 'out'),
    work: join(dir, 'work'),
    sourceDateEpoch: 1_700_000_000,
  });
  const root = copyRootfs(join(dir, 'root'));
  const diversions = readFileSync(join(root, 'var/lib/dpkg/diversions'), 'utf8');
  copyFileSync(deb, join(root, 'tmp', basename(deb)));
  const netcat = netcatOpenbsdDeb(join(dir, 'netcat'));
  copyFileSync(netcat, join(root, 'tmp', basename(netcat)));
  // dpkg -i exits non-zero when a dependency is missing: 0 says the image (with kiln's one new dependency) has
  // everything kiln needs.
  const installed = inRoot(root, `dpkg -i /tmp/${basename(netcat)} /tmp/${basename(deb)}`);
  assert.equal(installed.code, 0, installed.out);
  assert.match(installed.out, /Removing cloud-init .*to allow configuration of kiln/);
  assert.equal(dpkgState(root, 'cloud-init'), 'config-files');
  for (const unit of ['cloud-init.target', 'cloud-config.target', ...ENABLED_UNITS])
    assert.ok(existsSync(join(root, 'usr/lib/systemd/system', unit)), `${unit} survived cloud-init's removal`);
  assert.ok(existsSync(join(root, 'usr/lib/systemd/system-generators/cloud-init-generator')));
  assert.ok(existsSync(join(root, 'usr/lib/cloud-init/hook-hotplug')));
  for (const unit of ENABLED_UNITS) assert.equal(isEnabled(root, unit), 'enabled', unit);
  assert.equal(readFileSync(join(root, 'var/lib/dpkg/diversions'), 'utf8'), diversions);
  assert.deepEqual(bootUnitFindings(root), []);
  const audit = inRoot(root, 'dpkg --audit && dpkg --verify kiln');
  assert.equal(audit.code, 0, audit.out);
});
