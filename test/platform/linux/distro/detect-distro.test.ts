import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { detectDistro, distroInfoFromOsRelease, distroOpsFor } from '../../../../src/platform/linux/distro/detect-distro';
import { LinuxPlatform } from '../../../../src/platform/linux/linux-platform';
import { Logger } from '../../../../src/util/log';
import { tempDir } from '../../../helpers/temp';

const cases: Array<[string, string, string, string]> = [
  ['ID=debian\nVERSION_ID="12"\n', 'debian', 'debian', 'apt'],
  ['ID=ubuntu\nID_LIKE=debian\nVERSION_ID="22.04"\n', 'ubuntu', 'debian', 'apt'],
  ['ID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.3"\n', 'rocky', 'redhat', 'dnf'],
  ['ID=fedora\nVERSION_ID=39\n', 'fedora', 'redhat', 'dnf'],
  ['ID="almalinux"\nVERSION_ID="9.3"\n', 'almalinux', 'redhat', 'dnf'],
  ['ID="opensuse-leap"\nID_LIKE="suse opensuse"\nVERSION_ID="15.5"\n', 'opensuse-leap', 'suse', 'zypper'],
  ['ID="sles"\nVERSION_ID="12.5"\n', 'sles', 'suse', 'zypper'],
  ['ID=alpine\nVERSION_ID=3.19.0\n', 'alpine', 'alpine', 'apk'],
  ['ID=arch\n', 'arch', 'arch', 'pacman'],
  ['ID=mydistro\nID_LIKE="centos rhel"\n', 'mydistro', 'redhat', 'dnf'],
];

for (const [text, name, family, pm] of cases) {
  test(`os-release ${name} is family ${family} with ${pm}`, async (t) => {
    const root = tempDir(t);
    mkdirSync(join(root, 'etc'));
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    writeFileSync(join(root, 'etc/os-release'), text);
    if (pm === 'dnf') writeFileSync(join(root, 'usr/bin/dnf'), '');
    const p = new LinuxPlatform({ root, log: new Logger().for('test') });
    const info = await detectDistro(p);
    assert.equal(info.name, name);
    assert.equal(info.family, family);
    const ops = await distroOpsFor(p, info);
    assert.equal(ops.packageManager, pm);
    assert.equal(ops.packageCommand('install', ['vim']).argv.includes('vim'), true);
  });
}

test('old RHEL without dnf uses yum; SUSE 12 keeps /etc/HOSTNAME', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  writeFileSync(join(root, 'usr/bin/yum'), '');
  const p = new LinuxPlatform({ root, log: new Logger().for('test') });
  assert.equal((await distroOpsFor(p, { name: 'centos', family: 'redhat', version: '7' })).packageManager, 'yum');
  assert.equal((await distroOpsFor(p, { name: 'sles', family: 'suse', version: '12.5' })).hostnameFile, '/etc/HOSTNAME');
  assert.equal((await distroOpsFor(p, { name: 'sles', family: 'suse', version: '15.5' })).hostnameFile, '/etc/hostname');
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
  const deb = (await distroOpsFor(p, distroInfoFromOsRelease({ ID: 'debian' }))) as unknown as { useraddArgv(u: object): string[] };
  assert.deepEqual(
    deb.useraddArgv({ name: 'u', gecos: 'G', homedir: '/h', primaryGroup: 'pg', uid: 1500, groups: ['a', 'b'], passwdHash: '$6$x$y', shell: '/bin/sh', expiredate: '2030-01-01', system: true }),
    ['useradd', 'u', '--comment', 'G', '--home', '/h', '--gid', 'pg', '--uid', '1500', '--groups', 'a,b', '--password', '$6$x$y', '--shell', '/bin/sh', '--expiredate', '2030-01-01', '--system', '-M'],
  );
  assert.deepEqual(deb.useraddArgv({ name: 'v' }), ['useradd', 'v', '-m']);
  const alp = (await distroOpsFor(p, distroInfoFromOsRelease({ ID: 'alpine' }))) as unknown as { adduserArgv(u: object): string[] };
  assert.deepEqual(alp.adduserArgv({ name: 'u', gecos: 'G', homedir: '/h', uid: 7, shell: '/bin/ash', noCreateHome: true }), ['adduser', '-D', '-g', 'G', '-h', '/h', '-u', '7', '-s', '/bin/ash', '-H', 'u']);
});

test('hostname files keep their comments', async () => {
  const { renderHostnameFile } = await import('../../../../src/platform/linux/distro/base-distro');
  assert.equal(renderHostnameFile('# managed\nold\n', 'new'), '# managed\nnew\n');
  assert.equal(renderHostnameFile('', 'new'), 'new\n');
});
