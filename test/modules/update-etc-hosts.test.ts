import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderTemplateText } from '../../src/modules/support/cloud-template';
import { updateEtcHosts } from '../../src/modules/update-etc-hosts';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

const read = (root: string) => readFileSync(join(root, 'etc/hosts'), 'utf8');

test("manage_etc_hosts: true renders Debian's real hosts.debian.tmpl as python jinja2 does", async (t) => {
  if (!need(t, isRoot() && hasCommand('debootstrap'), 'needs root and debootstrap for the Debian rootfs')) return;
  const rootfs = ensureDebianRootfs('trixie');
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/templates'), { recursive: true });
  writeFileSync(
    join(root, 'etc/cloud/templates/hosts.debian.tmpl'),
    readFileSync(join(rootfs, 'etc/cloud/templates/hosts.debian.tmpl')),
  );
  await updateEtcHosts.run(moduleContext(root), { manage_etc_hosts: true, hostname: 'web', fqdn: 'web.example.com' });
  // The oracle: cloud-init's own templater in the rootfs, run in a chroot.
  const script =
    "from cloudinit import templater; import sys; sys.stdout.write(templater.render_from_file('/etc/cloud/templates/hosts.debian.tmpl', {'hostname': 'web', 'fqdn': 'web.example.com'}))";
  const r = spawnSync(
    'unshare',
    ['--net', '--uts', '--ipc', '--mount', '--pid', '--fork', 'chroot', rootfs, 'python3', '-c', script],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(read(root), r.stdout);
  assert.match(read(root), /^127\.0\.1\.1 web\.example\.com web$/m);
});

test('manage_etc_hosts: true without a template file uses the built-in one for the family', async (t) => {
  const root = tempDir(t);
  const ctx = moduleContext(root, { distro: { name: 'rocky', family: 'redhat', version: '9' } });
  await updateEtcHosts.run(ctx, { manage_etc_hosts: 'template', fqdn: 'db.lan' });
  // 25.1's lifecycle.deprecate for the 'template' value, at the DEPRECATED level.
  assert.ok(
    ctx.lines.some((l) =>
      l.includes(
        "[DEPRECATED]: Value 'template' for key 'manage_etc_hosts' is deprecated in 22.2 and scheduled to be removed in 27.2. Use 'true' instead.",
      ),
    ),
  );
  assert.match(read(root), /^127\.0\.0\.1 db\.lan db$/m);
  assert.match(read(root), /^::1 db\.lan db$/m);
  assert.doesNotMatch(read(root), /\{\{|template:jinja/);
});

test('manage_etc_hosts: localhost adds or extends the 127.0.1.1 line and keeps the rest', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'));
  writeFileSync(join(root, 'etc/hosts'), '127.0.0.1 localhost   # loop\n\n# comment\n127.0.1.1 old.example old\n');
  await updateEtcHosts.run(moduleContext(root), {
    manage_etc_hosts: 'localhost',
    hostname: 'new',
    fqdn: 'new.example',
  });
  assert.equal(
    read(root),
    '127.0.0.1\tlocalhost#loop\n\n# comment\n127.0.1.1\told.example\told\n127.0.1.1\tnew.example\tnew\n\n'.replace(
      '#loop',
      '# loop',
    ),
  );
  const before = read(root);
  await updateEtcHosts.run(moduleContext(root), {
    manage_etc_hosts: 'localhost',
    hostname: 'new',
    fqdn: 'new.example',
  });
  assert.equal(read(root), before, 'nothing to change: the file is left alone');
  const fresh = tempDir(t);
  await updateEtcHosts.run(moduleContext(fresh), { manage_etc_hosts: 'localhost', hostname: 'h', fqdn: 'h.d' });
  assert.match(read(fresh), /^# Added by cloud-init v\. 25\.1\.4 on .+\n127\.0\.1\.1\th\.d\th\n\n$/);
});

test('manage_etc_hosts false or absent leaves /etc/hosts alone', async (t) => {
  const root = tempDir(t);
  await updateEtcHosts.run(moduleContext(root), { manage_etc_hosts: false, hostname: 'x' });
  await updateEtcHosts.run(moduleContext(root), { hostname: 'x' });
  assert.equal(existsSync(join(root, 'etc/hosts')), false);
});

test('the template renderer: basic $vars, jinja comments and whitespace control', () => {
  assert.equal(renderTemplateText('a $x ${y.z} $nope\n', { x: 1, y: { z: 'q' } }), 'a 1 q $nope\n');
  assert.equal(renderTemplateText('## template:jinja\n{# c -#}\nA {{ v }}\n{# d #}\nB\n', { v: 'x' }), 'A x\nB\n');
});

test("manage_etc_hosts renders an image template with jinja statements and filters, as cloud-init's templater", async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/templates'), { recursive: true });
  const tpl = [
    '## template:jinja',
    "{# an image's own template #}",
    '{% set short = hostname | lower %}',
    '{% if fqdn and fqdn != hostname %}',
    '127.0.1.1 {{ fqdn }} {{ short }}',
    '{% else %}',
    '127.0.1.1 {{ short }}',
    '{% endif %}',
    '{% for name in ["localhost", "localhost.localdomain"] %}',
    '127.0.0.1 {{ name }}',
    '{% endfor %}',
    '',
  ].join('\n');
  writeFileSync(join(root, 'etc/cloud/templates/hosts.debian.tmpl'), tpl);
  await updateEtcHosts.run(moduleContext(root), { manage_etc_hosts: true, hostname: 'Web', fqdn: 'web.example.com' });
  // The loop's last line plus the newline cloud-init's jinja_render adds back for a template ending in one.
  assert.equal(read(root), '127.0.1.1 web.example.com web\n127.0.0.1 localhost\n127.0.0.1 localhost.localdomain\n\n');
  writeFileSync(join(root, 'etc/cloud/templates/hosts.debian.tmpl'), '## template:jinja\n{% if %}\n');
  await assert.rejects(
    updateEtcHosts.run(moduleContext(root), { manage_etc_hosts: true, hostname: 'w' }),
    /update_etc_hosts.*hosts\.debian\.tmpl/,
  );
});
