// `kiln check --root IMAGE`: every leftover it names is found on a deliberately dirty image, nothing on a clean one,
// and what it says to run mends it.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/main';
import { tempDir } from '../helpers/temp';

async function kiln(argv: string[]) {
  let out = '';
  let err = '';
  const code = await main({
    argv,
    argv0: 'kiln',
    env: {},
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
  });
  return { code, out, err };
}

function put(root: string, path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  chmodSync(join(root, path), mode);
}

const UNITS = [
  'cloud-init-main.service',
  'cloud-init-local.service',
  'cloud-init-network.service',
  'cloud-config.service',
  'cloud-final.service',
];

/**
 * An image as `kiln install` and a cleaned build leave it: the names, the generator, cloud-init-main.service and the
 * four stage units enabled.
 */
function cleanImage(root: string): void {
  put(root, '/usr/bin/kiln', '#!/bin/sh\n', 0o755);
  symlinkSync('kiln', join(root, 'usr/bin/cloud-init'));
  put(root, '/usr/lib/systemd/system-generators/cloud-init-generator', '#!/bin/sh\n', 0o755);
  for (const unit of UNITS) {
    put(
      root,
      `/usr/lib/systemd/system/${unit}`,
      `[Unit]\nDescription=${unit}\n[Service]\nExecStart=/usr/bin/cloud-init\n[Install]\nWantedBy=cloud-init.target\n`,
    );
    mkdirSync(join(root, 'etc/systemd/system/cloud-init.target.wants'), { recursive: true });
    symlinkSync(`/usr/lib/systemd/system/${unit}`, join(root, 'etc/systemd/system/cloud-init.target.wants', unit));
  }
  put(root, '/etc/machine-id', '');
  put(
    root,
    '/etc/passwd',
    'root:x:0:0:root:/root:/bin/bash\ndebian:x:1000:1000::/home/debian:/bin/bash\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n',
  );
  put(root, '/etc/shadow', 'root:*:20000:0:99999:7:::\ndebian:!:20000:0:99999:7:::\nnobody:*:20000:0:99999:7:::\n');
  mkdirSync(join(root, 'var/lib/cloud'), { recursive: true });
}

test('kiln check on a clean image: nothing found, exit 0; --json says ready', async (t) => {
  const root = tempDir(t);
  cleanImage(root);
  const r = await kiln(['--root', root, 'check']);
  assert.equal(r.code, 0, r.out + r.err);
  assert.equal(r.out, 'ready to capture\n');
  const j = await kiln(['--root', root, 'check', '--json']);
  assert.deepEqual(JSON.parse(j.out), { ready: true, findings: [] });
});

test('kiln check on a dirty image: each leftover is named with what to run (exit 1), and running it mends the image', async (t) => {
  const root = tempDir(t);
  cleanImage(root);
  // What a build's first boot leaves behind.
  put(root, '/etc/machine-id', '0123456789abcdef0123456789abcdef\n');
  put(root, '/etc/ssh/ssh_host_ed25519_key', 'PRIVATE', 0o600);
  put(root, '/etc/ssh/ssh_host_ed25519_key.pub', 'ssh-ed25519 AAAA host');
  put(root, '/etc/ssh/sshd_config.d/50-cloud-init.conf', 'PasswordAuthentication yes\n');
  put(root, '/etc/netplan/50-cloud-init.yaml', 'network: {version: 2}\n', 0o600);
  put(root, '/etc/sudoers.d/90-cloud-init-users', 'debian ALL=(ALL) NOPASSWD:ALL\n', 0o440);
  put(root, '/var/lib/cloud/instances/i-build/obj.pkl', '');
  symlinkSync('/var/lib/cloud/instances/i-build', join(root, 'var/lib/cloud/instance'));
  put(root, '/var/lib/cloud/seed/nocloud/user-data', '#cloud-config\n');
  put(root, '/var/log/cloud-init.log', 'build\n');
  put(
    root,
    '/etc/shadow',
    'root:*:20000:0:99999:7:::\ndebian:$6$salt$hash:20000:0:99999:7:::\nnobody:*:20000:0:99999:7:::\n',
  );
  put(root, '/home/debian/.ssh/authorized_keys', 'ssh-ed25519 AAAA builder\n');
  unlinkSync(join(root, 'etc/systemd/system/cloud-init.target.wants/cloud-final.service'));

  const r = await kiln(['--root', root, 'check', '--json']);
  assert.equal(r.code, 1, r.err);
  const doc = JSON.parse(r.out) as {
    ready: boolean;
    findings: Array<{ check: string; severity: string; path: string; message: string; fix: string }>;
  };
  assert.equal(doc.ready, false);
  const found = Object.fromEntries(doc.findings.map((f) => [f.check, f]));
  assert.deepEqual(
    doc.findings.map((f) => `${f.severity} ${f.check}`).sort(),
    [
      'error boot-units',
      'error instance-state',
      'error machine-id',
      'error passwords',
      'error sshd-drop-in',
      'warning authorized-keys',
      'warning ssh-host-keys',
      'warning logs',
      'warning network-config',
      'warning seed',
      'warning sudo-rules',
    ].sort(),
  );
  assert.match(found['boot-units']?.message ?? '', /not enabled: cloud-final\.service/);
  assert.equal(found['boot-units']?.fix, 'systemctl enable cloud-final.service');
  assert.match(found['sshd-drop-in']?.message ?? '', /turns SSH password login on/);
  assert.equal(found['sshd-drop-in']?.fix, 'cloud-init clean --configs ssh_config');
  assert.match(found.passwords?.message ?? '', /^debian has a password/);
  assert.match(found['instance-state']?.message ?? '', /\(instance, instances\)/);
  assert.match(
    found['ssh-host-keys']?.message ?? '',
    /ssh_host_ed25519_key\); each instance replaces them at its first boot \(ssh_deletekeys\)/,
  );
  // With ssh_deletekeys off, the instances would keep the image's host keys: an error.
  put(root, '/etc/cloud/cloud.cfg.d/90-keep-keys.cfg', 'ssh_deletekeys: false\n');
  const kept = JSON.parse((await kiln(['--root', root, 'check', '--json'])).out) as typeof doc;
  assert.equal(kept.findings.find((f) => f.check === 'ssh-host-keys')?.severity, 'error');
  rmSync(join(root, 'etc/cloud/cloud.cfg.d/90-keep-keys.cfg'));
  // Errors come first, then warnings.
  assert.deepEqual(
    doc.findings.map((f) => f.severity),
    [...doc.findings.map((f) => f.severity)].sort(),
  );

  const text = await kiln(['--root', root, 'check']);
  assert.equal(text.code, 1);
  assert.match(
    text.out,
    /^error: \/etc\/machine-id holds the build machine's id.*\n {2}fix: cloud-init clean --machine-id$/m,
  );
  assert.match(text.out, /^5 errors, 6 warnings: not ready to capture\n$/m);

  // What the findings say to run, in the image: clean mends the state, logs, seed and per-instance config.
  const cleaned = await kiln(['--root', root, 'clean', '--logs', '--seed', '--configs', 'all']);
  assert.equal(cleaned.code, 0, cleaned.err);
  put(root, '/etc/machine-id', '');
  rmSync(join(root, 'etc/ssh'), { recursive: true });
  rmSync(join(root, 'etc/sudoers.d/90-cloud-init-users'));
  put(
    root,
    '/etc/shadow',
    'root:*:20000:0:99999:7:::\ndebian:!$6$salt$hash:20000:0:99999:7:::\nnobody:*:20000:0:99999:7:::\n',
  );
  symlinkSync(
    '/usr/lib/systemd/system/cloud-final.service',
    join(root, 'etc/systemd/system/cloud-init.target.wants/cloud-final.service'),
  );
  const left = await kiln(['--root', root, 'check']);
  assert.equal(left.code, 2, left.out);
  assert.match(left.out, /^warning: \/home\/debian\/\.ssh\/authorized_keys holds 1 key from the build/m);
  assert.match(left.out, /^0 errors, 1 warning: ready to capture, but read the warnings\n$/m);
  rmSync(join(root, 'home/debian/.ssh/authorized_keys'));
  assert.equal((await kiln(['--root', root, 'check'])).code, 0);
});

test('kiln check: no units, no generator, cloud-init disabled, an unreadable cloud.cfg; cloud-init-main.service and each stage unit must be enabled', async (t) => {
  const root = tempDir(t);
  put(root, '/etc/cloud/cloud.cfg', 'users: [\n');
  put(root, '/etc/cloud/cloud-init.disabled', '');
  const r = await kiln(['--root', root, 'check', '--json']);
  assert.equal(r.code, 1);
  const messages = (JSON.parse(r.out) as { findings: Array<{ check: string; message: string }> }).findings.map(
    (f) => `${f.check}: ${f.message}`,
  );
  assert.ok(
    messages.some((m) =>
      /^system-config: the image's cloud-init config cannot be read: .*\/etc\/cloud\/cloud\.cfg/.test(m),
    ),
    messages.join('\n'),
  );
  assert.ok(
    messages.includes('boot-units: /usr/bin/cloud-init is missing: nothing runs the boot stages'),
    messages.join('\n'),
  );
  assert.ok(
    messages.some((m) => /^boot-units: no cloud-init-generator/.test(m)),
    messages.join('\n'),
  );
  assert.ok(
    messages.some((m) =>
      /^boot-units: not enabled: cloud-init-main\.service, cloud-init-local\.service, cloud-init-network\.service, cloud-config\.service, cloud-final\.service: .*every stage/.test(
        m,
      ),
    ),
    messages.join('\n'),
  );
  assert.ok(
    messages.some((m) => /^boot-units: \/etc\/cloud\/cloud-init\.disabled exists/.test(m)),
    messages.join('\n'),
  );

  // Debian 12's four units (cloud-init.service, no cloud-init-main.service) no longer run a boot of kiln.
  const single = tempDir(t);
  cleanImage(single);
  assert.equal((await kiln(['--root', single, 'check'])).code, 0);
  rmSync(join(single, 'etc/systemd/system/cloud-init.target.wants/cloud-init-main.service'));
  assert.match(
    (await kiln(['--root', single, 'check'])).out,
    /not enabled: cloud-init-main\.service: the first boot would skip every stage/,
  );
  symlinkSync(
    '/usr/lib/systemd/system/cloud-init-main.service',
    join(single, 'etc/systemd/system/cloud-init.target.wants/cloud-init-main.service'),
  );
  rmSync(join(single, 'etc/systemd/system/cloud-init.target.wants/cloud-config.service'));
  assert.match(
    (await kiln(['--root', single, 'check'])).out,
    /not enabled: cloud-config\.service: the first boot would skip those stages/,
  );
  symlinkSync(
    '/usr/lib/systemd/system/cloud-config.service',
    join(single, 'etc/systemd/system/cloud-init.target.wants/cloud-config.service'),
  );
  assert.equal((await kiln(['--root', single, 'check'])).code, 0);
  chmodSync(join(single, 'usr/lib/systemd/system-generators/cloud-init-generator'), 0o644);
  assert.match((await kiln(['--root', single, 'check'])).out, /cloud-init-generator is not executable/);
});

test("kiln check: the boot's /run/cloud-init, which clean leaves, is a finding only where /run is not a tmpfs (an offline tree)", async (t) => {
  const root = tempDir(t);
  cleanImage(root);
  put(root, '/run/cloud-init/instance-data.json', '{}\n');
  const offline = JSON.parse((await kiln(['--root', root, 'check', '--json'])).out) as {
    findings: Array<{ check: string; severity: string; path: string; fix: string }>;
  };
  assert.deepEqual(
    offline.findings.map((f) => [f.severity, f.path, f.fix]),
    [['warning', '/run/cloud-init', 'rm -rf /run/cloud-init/*']],
  );
  // A running system: its /run is a tmpfs, which no captured disk holds.
  put(root, '/proc/self/mounts', 'sysfs /sys sysfs rw 0 0\ntmpfs /run tmpfs rw,nosuid,nodev,mode=755 0 0\n');
  const running = await kiln(['--root', root, 'check']);
  assert.equal(running.code, 0, running.out);
});
