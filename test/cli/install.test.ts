import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/main';
import { tempDir } from '../helpers/temp';

async function runMain(argv: string[], argv0 = 'kiln') {
  let out = '';
  let err = '';
  const code = await main({ argv, argv0, env: {}, io: { out: (s) => void (out += s), err: (s) => void (err += s) } });
  return { code, out, err };
}

test('kiln install|uninstall are kiln verbs with --help, and --dry-run --root prints what install would do without doing it', async (t) => {
  const help = await runMain(['install', '--help']);
  assert.equal(help.code, 0);
  assert.doesNotMatch(help.out, /--units/);
  assert.match(help.out, /cloud-init-main\.service/);
  assert.match(help.out, /--replace/);
  assert.match((await runMain(['uninstall', '--help'])).out, /usage: kiln uninstall/);
  assert.equal((await runMain(['install'], '/usr/bin/cloud-init')).code, 2);

  const root = tempDir(t);
  const dry = await runMain(['--root', root, '--dry-run', 'install']);
  assert.equal(dry.code, 0, dry.err);
  // In the conditional throughout: the summary and every effect.
  assert.match(dry.out, /^would install \/usr\/bin\/kiln /m);
  assert.match(
    dry.out,
    /^would enable cloud-init-main\.service, cloud-init-local\.service, cloud-init-network\.service, cloud-config\.service, cloud-final\.service, cloud-init-hotplugd\.socket$/m,
  );
  assert.doesNotMatch(dry.out, /^(installed|enabled|wrote) /m);
  assert.match(dry.out, /^ {2}would write \/usr\/bin\/kiln \(\d+ bytes, mode 0755\)$/m);
  assert.match(dry.out, /^ {2}would symlink \/usr\/bin\/cloud-init -> kiln$/m);
  assert.match(
    dry.out,
    /^ {2}would symlink \/etc\/systemd\/system\/cloud-init\.target\.wants\/cloud-init-main\.service -> \/usr\/lib\/systemd\/system\/cloud-init-main\.service$/m,
  );
  assert.deepEqual(readdirSync(root), []);

  // --no-enable installs the units and enables none (minimist would read it as a negated --enable).
  const quiet = await runMain(['--root', root, '--dry-run', 'install', '--no-enable']);
  assert.equal(quiet.code, 0, quiet.err);
  assert.match(quiet.out, /^ {2}would write \/usr\/lib\/systemd\/system\/cloud-init-network\.service /m);
  assert.doesNotMatch(quiet.out, /would enable|would symlink \/etc\/systemd\/system\/.*\.wants\//);

  // cloud-init 25.1 has one set of units: --units (four processes or kiln's own one-process unit) is gone.
  const bad = await runMain(['--root', root, 'install', '--units', 'four']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--units/);
});

test("kiln install refuses with exit 1 and one line where Debian's cloud-init is installed", async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/dpkg'), { recursive: true });
  writeFileSync(join(root, 'var/lib/dpkg/status'), 'Package: cloud-init\nStatus: install ok installed\n');
  const r = await runMain(['--root', root, 'install']);
  assert.equal(r.code, 1);
  assert.match(
    r.err,
    /^kiln: error: Debian's cloud-init is installed in .* \(dpkg lists the cloud-init package as installed .*\); remove it \(apt-get purge cloud-init\) or give --replace to take over its names\n$/,
  );
  assert.deepEqual(readdirSync(root), ['var']);
});
