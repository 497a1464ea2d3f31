// kiln's Debian packages (deb.mjs, built by build.mjs --release): the control fields that make apt replace Debian's
// cloud-init with them, the files laid out exactly as `kiln install` lays them out, the maintainer scripts enabling
// the units kiln install enables, and bytes that depend on nothing but the inputs and SOURCE_DATE_EPOCH.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { KILN_CLOUD_INIT_VERSION } from '../../src/build-info';
import { ENABLED_UNITS } from '../../src/install/linux-install';
import { buildDebForTest, debFields, debMembers } from '../helpers/deb-package';
import { builtBinary, REPO } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

/** Every file and link under ROOT (not folders): path, type, mode, a link's target. */
function files(root: string): string[] {
  const r = spawnSync('find', [root, '-mindepth', '1', '-not', '-type', 'd', '-printf', '%P %y %m %l\\n'], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).sort();
}

function extracted(deb: string, into: string): string {
  const r = spawnSync('dpkg-deb', ['-x', deb, into], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return into;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

for (const [target, arch] of [
  ['linux-x64', 'amd64'],
  ['linux-arm64', 'arm64'],
] as const) {
  test(`the ${arch} .deb: Provides/Conflicts/Replaces cloud-init, the binary, its names, units, generator and hook as kiln install lays them out, cloud.cfg a conffile`, {
    timeout: 300_000,
  }, (t) => {
    const binary = builtBinary(`kiln-${target}`);
    if (!need(t, binary !== undefined, `dist/kiln-${target} is not built (node build.mjs ${target})`)) return;
    if (!need(t, hasCommand('dpkg-deb'), 'dpkg-deb is not installed')) return;
    const dir = tempDir(t, 'kiln-deb-');
    const deb = buildDebForTest({
      target,
      binaryFile: binary as string,
      outDir: join(dir, 'out'),
      work: join(dir, 'work'),
      sourceDateEpoch: 1_700_000_000,
    });
    assert.equal(deb, join(dir, 'out', `kiln_${VERSION}_${arch}.deb`));

    const f = debFields(deb);
    assert.equal(f.Package, 'kiln');
    assert.equal(f.Version, VERSION);
    assert.equal(f.Architecture, arch);
    // Versioned, so that a package depending on cloud-init (>= X) is satisfied by the release kiln reproduces.
    assert.equal(f.Provides, `cloud-init (= ${KILN_CLOUD_INIT_VERSION})`);
    assert.equal(f.Conflicts, 'cloud-init');
    assert.equal(f.Replaces, 'cloud-init');
    // The C runtime Node's binary links against, and netcat-openbsd, whose nc the stage units start their stage
    // with (as Debian 13's cloud-init package depends on it); no python3, nothing else cloud-init pulled in.
    assert.equal(f.Depends, 'libc6 (>= 2.28), libgcc-s1 (>= 3.4), libstdc++6 (>= 5), netcat-openbsd');
    assert.ok(
      Number(f['Installed-Size']) > Math.floor(readFileSync(binary as string).length / 1024),
      f['Installed-Size'],
    );

    const info = (member: string) => spawnSync('dpkg-deb', ['--info', deb, member], { encoding: 'utf8' }).stdout;
    assert.equal(info('conffiles'), '/etc/cloud/cloud.cfg\n');
    assert.match(info('triggers'), /^interest-noawait \/etc\/cloud\/templates$/m);
    for (const script of ['preinst', 'postinst', 'prerm', 'postrm'])
      assert.match(info(script), /^#!\/bin\/sh\n/, script);
    // The /lib names the preinst protects while cloud-init is removed: each file shipped under /usr/lib.
    assert.match(
      info('preinst'),
      /^ALIASED="\/lib\/cloud-init\/hook-hotplug \/lib\/systemd\/system\/cloud-config\.service .*\/lib\/systemd\/system-generators\/cloud-init-generator"$/m,
    );
    // The maintainer scripts enable, and purge, exactly the units `kiln install` enables.
    for (const script of ['postinst', 'postrm'])
      assert.deepEqual(
        /^UNITS="([^"]*)"$/m.exec(info(script))?.[1]?.split(' ').sort(),
        [...ENABLED_UNITS].sort(),
        script,
      );
    assert.match(
      info('md5sums'),
      new RegExp(
        `^${createHash('md5')
          .update(readFileSync(binary as string))
          .digest('hex')}  usr/bin/kiln$`,
        'm',
      ),
    );

    // Every member root's, in the layout `kiln install` makes (plus the conffile), from the same embedded files.
    for (const m of debMembers(deb)) assert.match(m, / root\/root$/, m);
    const unpacked = files(extracted(deb, join(dir, 'x')));
    assert.ok(unpacked.includes('etc/cloud/cloud.cfg f 644 '));
    assert.equal(
      readFileSync(join(dir, 'x/etc/cloud/cloud.cfg'), 'utf8'),
      readFileSync(join(REPO, 'src/config/defaults/cloud.cfg'), 'utf8'),
    );
    assert.ok(readFileSync(join(dir, 'x/usr/bin/kiln')).equals(readFileSync(binary as string)));
    if (target === 'linux-x64' && process.arch === 'x64') {
      const installed = join(dir, 'installed');
      mkdirSync(installed);
      const r = spawnSync(binary as string, ['install', '--root', installed], {
        encoding: 'utf8',
        env: { ...process.env, KILN_FACE: '' },
      });
      assert.equal(r.status, 0, r.stderr);
      // The enable links are the postinst's to make (deb-systemd-helper), not members of the package.
      assert.deepEqual(
        unpacked.filter((l) => !l.startsWith('etc/cloud/cloud.cfg ') && !l.startsWith('usr/share/doc/')),
        files(installed).filter((l) => !l.startsWith('etc/systemd/system/')),
      );
    } else {
      assert.deepEqual(
        unpacked.filter((l) => l.startsWith('usr/bin/') || l.includes('generator') || l.includes('hook-hotplug')),
        [
          'usr/bin/cloud-id l 777 kiln',
          'usr/bin/cloud-init l 777 kiln',
          'usr/bin/kiln f 755 ',
          'usr/lib/cloud-init/hook-hotplug f 755 ',
          'usr/lib/systemd/system-generators/cloud-init-generator f 755 ',
        ],
      );
    }
    for (const unit of [...ENABLED_UNITS, 'cloud-init.target', 'cloud-config.target', 'cloud-init-hotplugd.service'])
      assert.ok(unpacked.includes(`usr/lib/systemd/system/${unit} f 644 `), unit);

    // Debian policy 12.5: the copyright file, machine-readable; kiln's licence and each bundled component's text.
    const copyright = readFileSync(join(dir, 'x/usr/share/doc/kiln/copyright'), 'utf8');
    assert.match(
      copyright,
      /^Format: https:\/\/www\.debian\.org\/doc\/packaging-manuals\/copyright-format\/1\.0\/\nUpstream-Name: kiln\n/,
    );
    assert.match(copyright, /^Files: \*\nCopyright: the kiln authors\nLicense: Apache-2\.0\n/m);
    assert.match(copyright, /\/usr\/share\/common-licenses\/Apache-2\.0/);
    const node = /^ (node-linux-(?:x64|arm64)) (\S+) \(MIT\): (third-party\/\S+)$/m.exec(copyright);
    assert.ok(node, copyright);
    for (const [, name, , file] of copyright.matchAll(/^ (\S+) (\S+) \([^)]*\): (third-party\/\S+)$/gm)) {
      assert.ok(unpacked.includes(`usr/share/doc/kiln/${file} f 644 `), `${name}'s licence text is shipped (${file})`);
    }
    assert.match(copyright, /^ yaml \S+ \(ISC\): third-party\/yaml-\S+\.LICENSE$/m);
    assert.match(
      readFileSync(join(dir, `x/usr/share/doc/kiln/${node?.[3] as string}`), 'utf8'),
      /Node\.js is licensed for use as follows/,
    );
  });
}

test('the .deb is the same bytes whatever the build folder, umask, file times and clock; SOURCE_DATE_EPOCH dates its members', {
  timeout: 120_000,
}, (t) => {
  if (!need(t, hasCommand('dpkg-deb'), 'dpkg-deb is not installed')) return;
  const dir = tempDir(t, 'kiln-deb-repro-');
  // A stand-in for the binary: what is checked is the packaging, and xz of the real 100 MB takes half a minute.
  const a = join(dir, 'a', 'kiln');
  const b = join(dir, 'b', 'other-name');
  for (const f of [a, b]) {
    mkdirSync(join(f, '..'), { recursive: true });
    writeFileSync(f, '#!/bin/sh\necho kiln\n', { mode: 0o700 });
  }
  utimesSync(b, 1_000_000, 1_000_000);
  const first = buildDebForTest({
    target: 'linux-x64',
    binaryFile: a,
    outDir: join(dir, 'out1'),
    work: join(dir, 'w1'),
    sourceDateEpoch: 1_700_000_000,
    umask: 0o022,
  });
  const second = buildDebForTest({
    target: 'linux-x64',
    binaryFile: b,
    outDir: join(dir, 'deeper', 'out2'),
    work: join(dir, 'other-work'),
    sourceDateEpoch: 1_700_000_000,
    umask: 0o077,
  });
  assert.equal(sha256(first), sha256(second));
  const listing = spawnSync('dpkg-deb', ['-c', first], { encoding: 'utf8' }).stdout;
  for (const line of listing.split('\n').filter(Boolean))
    assert.match(line, / root\/root +\d+ 2023-11-14 22:13 \.\//, line);
  assert.match(listing, /^-rwxr-xr-x root\/root +20 .* \.\/usr\/bin\/kiln$/m);
  // The ar header's time is the same epoch (bytes 16-28 of the first member's header: its mtime, decimal).
  assert.equal(
    readFileSync(first)
      .subarray(8 + 16, 8 + 28)
      .toString('latin1')
      .trim(),
    '1700000000',
  );

  const later = buildDebForTest({
    target: 'linux-x64',
    binaryFile: a,
    outDir: join(dir, 'out3'),
    work: join(dir, 'w3'),
    sourceDateEpoch: 1_700_000_001,
  });
  assert.notEqual(sha256(later), sha256(first));
  // Without SOURCE_DATE_EPOCH the epoch is 0, not the clock: still the same bytes twice.
  const unset1 = buildDebForTest({
    target: 'linux-x64',
    binaryFile: a,
    outDir: join(dir, 'out4'),
    work: join(dir, 'w4'),
  });
  const unset2 = buildDebForTest({
    target: 'linux-x64',
    binaryFile: b,
    outDir: join(dir, 'out5'),
    work: join(dir, 'w5'),
    umask: 0o077,
  });
  assert.equal(sha256(unset1), sha256(unset2));
});
