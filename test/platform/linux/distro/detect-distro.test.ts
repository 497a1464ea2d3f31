import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  detectDistro,
  distroInfoFromOsRelease,
  distroOpsFor,
} from '../../../../src/platform/linux/distro/detect-distro';
import { LinuxPlatform } from '../../../../src/platform/linux/linux-platform';
import { parseOsRelease } from '../../../../src/platform/os-release';
import { Logger } from '../../../../src/util/log';
import { FIXTURES as FIXTURES_DIR } from '../../../helpers/repo';
import { tempDir } from '../../../helpers/temp';

/**
 * Real os-release files (test/fixtures/os-release, as the distributions ship them): cloud-init's distro name,
 * osfamily, version and codename kiln reads from each, and the package manager of its family.
 */
const FIXTURES: Array<{ file: string; name: string; family: string; version: string; codename?: string; pm: string }> =
  [
    { file: 'debian-12', name: 'debian', family: 'debian', version: '12', codename: 'bookworm', pm: 'apt' },
    { file: 'ubuntu-24.04', name: 'ubuntu', family: 'debian', version: '24.04', codename: 'noble', pm: 'apt' },
    { file: 'rhel-9.4', name: 'rhel', family: 'redhat', version: '9.4', codename: 'Plow', pm: 'dnf' },
    { file: 'rocky-9.4', name: 'rocky', family: 'redhat', version: '9.4', codename: 'Blue Onyx', pm: 'dnf' },
    {
      file: 'almalinux-9.4',
      name: 'almalinux',
      family: 'redhat',
      version: '9.4',
      codename: 'Seafoam Ocelot',
      pm: 'dnf',
    },
    { file: 'centos-stream-9', name: 'centos', family: 'redhat', version: '9', pm: 'dnf' },
    { file: 'centos-7', name: 'centos', family: 'redhat', version: '7', codename: 'Core', pm: 'yum' },
    { file: 'fedora-40', name: 'fedora', family: 'redhat', version: '40', codename: 'Cloud Edition', pm: 'dnf' },
    { file: 'ol-9.4', name: 'rhel', family: 'redhat', version: '9.4', pm: 'dnf' },
    { file: 'amzn-2023', name: 'amazon', family: 'redhat', version: '2023', pm: 'dnf' },
    { file: 'opensuse-leap-15.6', name: 'opensuse', family: 'suse', version: '15.6', pm: 'zypper' },
    { file: 'opensuse-tumbleweed', name: 'opensuse', family: 'suse', version: '20240920', pm: 'zypper' },
    { file: 'sles-15-sp5', name: 'sles', family: 'suse', version: '15.5', pm: 'zypper' },
    { file: 'sles-12-sp5', name: 'sles', family: 'suse', version: '12.5', pm: 'zypper' },
    { file: 'sle-micro-5.5', name: 'sle-micro', family: 'suse', version: '5.5', pm: 'zypper' },
    { file: 'alpine-3.20', name: 'alpine', family: 'alpine', version: '3.20.3', pm: 'apk' },
    { file: 'arch', name: 'arch', family: 'arch', version: '', pm: 'pacman' },
    // Derivatives, known by ID_LIKE: they take the name of the distro they are built on.
    { file: 'manjaro', name: 'arch', family: 'arch', version: '', pm: 'pacman' },
    { file: 'linuxmint-21.3', name: 'ubuntu', family: 'debian', version: '21.3', codename: 'virginia', pm: 'apt' },
    { file: 'lmde-6', name: 'debian', family: 'debian', version: '6', codename: 'faye', pm: 'apt' },
    { file: 'pop-22.04', name: 'ubuntu', family: 'debian', version: '22.04', codename: 'jammy', pm: 'apt' },
  ];

for (const f of FIXTURES) {
  test(`os-release of ${f.file}: ${f.name} (${f.family}) ${f.version}, ${f.pm}`, async (t) => {
    const text = readFileSync(join(FIXTURES_DIR, 'os-release', f.file), 'utf8');
    const root = tempDir(t);
    mkdirSync(join(root, 'etc'));
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    writeFileSync(join(root, 'etc/os-release'), text);
    if (f.pm === 'dnf') writeFileSync(join(root, 'usr/bin/dnf'), '');
    if (f.pm === 'yum') writeFileSync(join(root, 'usr/bin/yum'), '');
    const p = new LinuxPlatform({ root, log: new Logger().for('test') });
    const info = await detectDistro(p);
    const id = parseOsRelease(text).ID?.toLowerCase();
    assert.deepEqual(info, {
      name: f.name,
      family: f.family,
      version: f.version,
      ...(f.codename ? { codename: f.codename } : {}),
      osReleaseId: id,
    });
    const ops = await distroOpsFor(p, info);
    assert.equal(ops.packageManager, f.pm);
    assert.equal(ops.packageCommand('install', ['vim']).argv.includes('vim'), true);
  });
}

test('every ID_LIKE word is tried in order, not only the first; an unknown one leaves the family unknown', () => {
  assert.deepEqual(distroInfoFromOsRelease({ ID: 'mydistro', ID_LIKE: 'mageia centos rhel' }), {
    name: 'centos',
    family: 'redhat',
    version: '',
    osReleaseId: 'mydistro',
  });
  assert.deepEqual(distroInfoFromOsRelease({ ID: 'mydistro', ID_LIKE: 'mageia suse' }), {
    name: 'suse',
    family: 'suse',
    version: '',
    osReleaseId: 'mydistro',
  });
  assert.deepEqual(distroInfoFromOsRelease({ ID: 'serenity', ID_LIKE: 'haiku plan9', VERSION_ID: '1' }), {
    name: 'serenity',
    family: 'unknown',
    version: '1',
    osReleaseId: 'serenity',
  });
  assert.deepEqual(distroInfoFromOsRelease({}), { name: 'unknown', family: 'unknown', version: '' });
});

test("cloud.cfg's system_info.distro names the distro, and its family comes from the table", async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'));
  writeFileSync(join(root, 'etc/os-release'), readFileSync(join(FIXTURES_DIR, 'os-release', 'debian-12'), 'utf8'));
  const p = new LinuxPlatform({ root, log: new Logger().for('test') });
  assert.deepEqual(await detectDistro(p, { system_info: { distro: 'ubuntu' } }), {
    name: 'ubuntu',
    family: 'debian',
    version: '12',
    codename: 'bookworm',
    osReleaseId: 'debian',
  });
  assert.equal((await detectDistro(p, { system_info: { distro: 'Rocky' } })).family, 'redhat');
  assert.equal(
    (await detectDistro(p, { system_info: { distro: 'gentoo' } })).family,
    'debian',
    'a configured name kiln does not know keeps the os-release family',
  );
});

test('old RHEL without dnf uses yum; SUSE 12 keeps /etc/HOSTNAME', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  writeFileSync(join(root, 'usr/bin/yum'), '');
  const p = new LinuxPlatform({ root, log: new Logger().for('test') });
  assert.equal((await distroOpsFor(p, { name: 'centos', family: 'redhat', version: '7' })).packageManager, 'yum');
  assert.equal(
    (await distroOpsFor(p, { name: 'sles', family: 'suse', version: '12.5' })).hostnameFile,
    '/etc/HOSTNAME',
  );
  assert.equal(
    (await distroOpsFor(p, { name: 'sles', family: 'suse', version: '15.5' })).hostnameFile,
    '/etc/hostname',
  );
});

test('service names and restart commands differ per family', async (t) => {
  const p = new LinuxPlatform({ root: tempDir(t), log: new Logger().for('test') });
  const deb = await distroOpsFor(p, distroInfoFromOsRelease({ ID: 'debian' }));
  const alp = await distroOpsFor(p, distroInfoFromOsRelease({ ID: 'alpine' }));
  const rh = await distroOpsFor(p, distroInfoFromOsRelease({ ID: 'fedora' }));
  assert.equal(deb.serviceName('ssh'), 'ssh');
  assert.equal(rh.serviceName('ssh'), 'sshd');
  assert.deepEqual(alp.restartServiceCommand('sshd'), ['rc-service', 'sshd', 'restart']);
  assert.deepEqual(deb.restartServiceCommand('ssh'), ['systemctl', 'restart', 'ssh']);
  assert.equal(deb.packageCommand('install', ['a']).env.DEBIAN_FRONTEND, 'noninteractive');
});

test('useradd and busybox adduser argv carry every user option', async (t) => {
  const p = new LinuxPlatform({ root: tempDir(t), log: new Logger().for('test') });
  const deb = (await distroOpsFor(p, distroInfoFromOsRelease({ ID: 'debian' }))) as unknown as {
    useraddArgv(u: object): string[];
  };
  assert.deepEqual(
    deb.useraddArgv({
      name: 'u',
      gecos: 'G',
      homedir: '/h',
      primaryGroup: 'pg',
      uid: 1500,
      groups: ['a', 'b'],
      passwdHash: '$6$x$y',
      shell: '/bin/sh',
      expiredate: '2030-01-01',
      system: true,
    }),
    [
      'useradd',
      'u',
      '--comment',
      'G',
      '--home',
      '/h',
      '--gid',
      'pg',
      '--uid',
      '1500',
      '--groups',
      'a,b',
      '--password',
      '$6$x$y',
      '--shell',
      '/bin/sh',
      '--expiredate',
      '2030-01-01',
      '--system',
      '-M',
    ],
  );
  assert.deepEqual(deb.useraddArgv({ name: 'v' }), ['useradd', 'v', '-m']);
  const alp = (await distroOpsFor(p, distroInfoFromOsRelease({ ID: 'alpine' }))) as unknown as {
    adduserArgv(u: object): string[];
  };
  assert.deepEqual(
    alp.adduserArgv({ name: 'u', gecos: 'G', homedir: '/h', uid: 7, shell: '/bin/ash', noCreateHome: true }),
    ['adduser', '-D', '-g', 'G', '-h', '/h', '-u', '7', '-s', '/bin/ash', '-H', 'u'],
  );
});

test('hostname files keep their comments', async () => {
  const { renderHostnameFile } = await import('../../../../src/platform/linux/distro/base-distro');
  assert.equal(renderHostnameFile('# managed\nold\n', 'new'), '# managed\nnew\n');
  assert.equal(renderHostnameFile('', 'new'), 'new\n');
});
