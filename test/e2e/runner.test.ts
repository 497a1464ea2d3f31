// The built binary installed as /usr/bin/cloud-init in a Debian rootfs, booted under unshare + chroot on a NoCloud
// seed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { findModule } from '../../src/modules/registry';
import { copyRootfs } from '../helpers/debian-rootfs';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const binary = builtBinary('kiln-linux-x64');

/** Runs ARGV inside ROOT with its own UTS, IPC, mount, PID and (empty) network namespaces: nothing reaches the host. */
function inRoot(root: string, argv: string[], timeout = 120_000) {
  const r = spawnSync(
    'unshare',
    ['--uts', '--ipc', '--mount', '--pid', '--net', '--fork', '--kill-child', 'chroot', root, ...argv],
    { encoding: 'utf8', timeout },
  );
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function seed(root: string, iid: string, userData: string): void {
  const dir = join(root, 'var/lib/cloud/seed/nocloud');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'meta-data'), `instance-id: ${iid}\nlocal-hostname: kiln-e2e\n`);
  writeFileSync(join(dir, 'user-data'), userData);
}

// locale C.UTF-8: the rootfs has no generated en_US.UTF-8 and update-locale refuses it (see docs/runner.md).
// resize_rootfs off: in a chroot / is no mount of its own, which resizefs warns about (as cloud-init's does).
const GOOD = `#cloud-config
locale: C.UTF-8
resize_rootfs: false
bootcmd:
  - echo boot >> /var/tmp/bootcmd-count
runcmd:
  - echo once >> /var/tmp/runcmd-count
write_files:
  - path: /etc/kiln-e2e.txt
    content: written per instance
`;

function lines(root: string, file: string): number {
  const p = join(root, file);
  return existsSync(p) ? readFileSync(p, 'utf8').trim().split('\n').length : 0;
}

test('kiln as /usr/bin/cloud-init in Debian: boots, re-boots, new instances, degraded runs, and the Packer provisioner', {
  timeout: 600_000,
}, async (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
      'needs root, unshare and debootstrap (the cached Debian rootfs)',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-e2e-runner-'));
  copyFileSync(binary as string, join(root, 'usr/bin/cloud-init'));
  // The rootfs carries Debian's cloud-init package (for the parity harness), whose cloud.cfg lists modules kiln
  // does not implement. An image with kiln installed as README says has no such file: kiln's embedded one applies.
  const debianCloudCfg = readFileSync(join(root, 'etc/cloud/cloud.cfg'), 'utf8');
  rmSync(join(root, 'etc/cloud/cloud.cfg'));
  seed(root, 'iid-e2e-1', GOOD);

  await t.test('first boot runs per-instance modules; status --wait returns 0', () => {
    const boot = inRoot(root, ['/usr/bin/cloud-init', '--all-stages']);
    assert.equal(boot.code, 0, boot.err);
    const st = inRoot(root, ['/usr/bin/cloud-init', 'status', '--wait', '--long']);
    assert.equal(st.code, 0, st.out + st.err);
    assert.match(st.out, /status: done\nextended_status: done/);
    assert.match(st.out, /detail: DataSourceNoCloud \[seed=\/var\/lib\/cloud\/seed\/nocloud\]\n/);
    assert.ok(existsSync(join(root, 'var/lib/cloud/instances/iid-e2e-1/sem/consume_data')));
    assert.ok(
      !existsSync(join(root, 'var/lib/cloud/instances/iid-e2e-1/vendor-cloud-config.txt')),
      'no vendor data, no vendor cloud-config',
    );
    assert.equal(lines(root, 'var/tmp/runcmd-count'), 1);
    assert.equal(lines(root, 'var/tmp/bootcmd-count'), 1);
    assert.equal(readFileSync(join(root, 'etc/kiln-e2e.txt'), 'utf8'), 'written per instance');
    assert.equal(inRoot(root, ['/usr/bin/cloud-init', 'query', 'v1.instance_id']).out, 'iid-e2e-1\n');
    assert.equal(inRoot(root, ['/usr/bin/cloud-init', 'cloud-id']).out, 'nocloud\n');
    assert.equal(readFileSync(join(root, 'etc/hostname'), 'utf8').trim(), 'kiln-e2e');
    for (const f of [
      'run/cloud-init/status.json',
      'run/cloud-init/result.json',
      'run/cloud-init/instance-data.json',
      'run/cloud-init/instance-data-sensitive.json',
      'run/cloud-init/combined-cloud-config.json',
      'var/lib/cloud/instances/iid-e2e-1/boot-finished',
      'var/log/cloud-init.log',
      'var/log/cloud-init-output.log',
    ]) {
      assert.ok(existsSync(join(root, f)), f);
    }
    assert.match(
      readFileSync(join(root, 'var/log/cloud-init-output.log'), 'utf8'),
      /Cloud-init v\. .* running 'modules:final'/,
    );
    // The binary's host keys, from the OpenSSL it carries: the rootfs's ssh-keygen reads each private file and
    // derives the public line the binary wrote beside it.
    for (const type of ['rsa', 'ecdsa', 'ed25519']) {
      const derived = inRoot(root, ['ssh-keygen', '-y', '-f', `/etc/ssh/ssh_host_${type}_key`]);
      assert.equal(derived.code, 0, `${type}: ${derived.err}`);
      const written = readFileSync(join(root, `etc/ssh/ssh_host_${type}_key.pub`), 'utf8');
      assert.equal(derived.out.split(' ').slice(0, 2).join(' '), written.split(' ').slice(0, 2).join(' '), type);
    }
    // bootcmd and runcmd above were started by posix_spawn, with the koffi the binary carries (not Node's spawn).
    const log = readFileSync(join(root, 'var/log/cloud-init.log'), 'utf8');
    assert.match(log, /commands are started with posix_spawn/);
    assert.doesNotMatch(log, /started with Node's spawn/);
    // The default user of Debian's cloud.cfg was written by kiln itself, under /etc/.pwd.lock taken through the
    // binary's koffi (without it the tools would have run).
    assert.match(
      readFileSync(join(root, 'etc/passwd'), 'utf8'),
      /^debian:x:1000:1000:Debian:\/home\/debian:\/bin\/bash$/m,
    );
    assert.match(log, /Running command /, 'the commands kiln runs are logged');
    assert.doesNotMatch(log, /Running command (useradd|groupadd|usermod|passwd)\b/);
    assert.doesNotMatch(log, /left to the distro's tools/);
  });

  await t.test('a second boot with the same instance id runs only the per-boot modules', () => {
    const boot = inRoot(root, ['/usr/bin/cloud-init', '--all-stages']);
    assert.equal(boot.code, 0, boot.err);
    assert.equal(lines(root, 'var/tmp/runcmd-count'), 1);
    assert.equal(lines(root, 'var/tmp/bootcmd-count'), 2);
    assert.equal(readFileSync(join(root, 'var/lib/cloud/data/previous-instance-id'), 'utf8'), 'iid-e2e-1\n');
    rmSync(join(root, 'etc/kiln-e2e.txt'));
    assert.equal(inRoot(root, ['/usr/bin/cloud-init', 'single', '--name', 'write_files']).code, 0);
    assert.ok(!existsSync(join(root, 'etc/kiln-e2e.txt')), 'single honours the per-instance semaphore');
    const again = inRoot(root, ['/usr/bin/cloud-init', 'single', '--name', 'cc_write_files', '--frequency', 'always']);
    assert.equal(again.code, 0, again.err);
    assert.equal(readFileSync(join(root, 'etc/kiln-e2e.txt'), 'utf8'), 'written per instance');
  });

  await t.test('the stages as separate processes, as the systemd units run them, on a new instance id', () => {
    seed(root, 'iid-e2e-2', GOOD);
    for (const argv of [['init', '--local'], ['init'], ['modules', '--mode=config'], ['modules', '--mode=final']]) {
      const r = inRoot(root, ['/usr/bin/cloud-init', ...argv]);
      assert.equal(r.code, 0, `${argv.join(' ')}: ${r.err}`);
    }
    assert.equal(lines(root, 'var/tmp/runcmd-count'), 2, 'runcmd ran again for the new instance');
    assert.equal(inRoot(root, ['/usr/bin/cloud-init', 'status']).code, 0);
  });

  await t.test('a failing module: the others still run, status --wait returns 1 (error), as cloud-init does', () => {
    seed(root, 'iid-e2e-3', `${GOOD}  - path: /etc/kiln-bad.txt\n    content: x\n    owner: nosuchuser:nosuchgroup\n`);
    const boot = inRoot(root, ['/usr/bin/cloud-init', '--all-stages']);
    assert.equal(boot.code, 1);
    assert.equal(lines(root, 'var/tmp/runcmd-count'), 3, 'runcmd still ran');
    const st = inRoot(root, ['/usr/bin/cloud-init', 'status', '--wait', '--long']);
    assert.equal(st.code, 1, st.out);
    assert.match(st.out, /status: error\nextended_status: error - done/);
    assert.match(
      st.out,
      /\('write_files', \w+Error\(/,
      "named as the module list spells it (kiln's embedded one: write_files)",
    );
  });

  await t.test('the Packer provisioner works unchanged and leaves the rootfs ready to capture', () => {
    seed(root, 'iid-e2e-4', GOOD);
    assert.equal(inRoot(root, ['/usr/bin/cloud-init', '--all-stages']).code, 0);
    writeFileSync(
      join(root, 'tmp/provision.sh'),
      '#!/bin/sh\ncloud-init status --wait --long; cloud-init clean --logs --machine-id\n',
    );
    const p = inRoot(root, ['/bin/sh', '/tmp/provision.sh']);
    assert.equal(p.code, 0, p.out + p.err);
    assert.match(p.out, /status: done/);
    assert.deepEqual(readdirSync(join(root, 'var/lib/cloud')), ['seed']);
    assert.ok(!existsSync(join(root, 'var/log/cloud-init.log')));
    assert.ok(!existsSync(join(root, 'var/log/cloud-init-output.log')));
    assert.equal(readFileSync(join(root, 'etc/machine-id'), 'utf8'), 'uninitialized\n');
    assert.equal(inRoot(root, ['/usr/bin/cloud-init', 'status']).out, 'status: not started\n');
    // The captured image boots as a fresh instance from the same seed (its /run a new tmpfs, as every boot's).
    rmSync(join(root, 'run/cloud-init'), { recursive: true, force: true });
    rmSync(join(root, 'var/tmp/runcmd-count'));
    assert.equal(inRoot(root, ['/usr/bin/cloud-init', '--all-stages']).code, 0);
    assert.equal(lines(root, 'var/tmp/runcmd-count'), 1);
  });

  await t.test(
    "Debian's own cloud.cfg: kiln has every module it lists, so the boot is done (not degraded) and status --wait returns 0",
    () => {
      writeFileSync(join(root, 'etc/cloud/cloud.cfg'), debianCloudCfg);
      seed(root, 'iid-e2e-7', GOOD);
      assert.equal(inRoot(root, ['/usr/bin/cloud-init', '--all-stages']).code, 0);
      const st = inRoot(root, ['/usr/bin/cloud-init', 'status', '--wait', '--long']);
      assert.equal(st.code, 0, st.out);
      assert.match(st.out, /status: done\nextended_status: done\n/);
      assert.match(st.out, /errors: \[\]\n/);
      // Every module Debian's list names is one of kiln's (refresh_rmc_and_interface was the last one missing);
      // modules cloud-init itself removed (migrator, emit_upstart) are noted at INFO, not warned about.
      const cfg = parseYaml(debianCloudCfg) as Record<string, unknown>;
      const entries = ['cloud_init_modules', 'cloud_config_modules', 'cloud_final_modules'].flatMap(
        (k) => (cfg[k] as unknown[] | undefined) ?? [],
      );
      const listed = entries.map((e) => String(Array.isArray(e) ? e[0] : e).replace(/-/g, '_'));
      assert.ok(listed.includes('refresh_rmc_and_interface'), listed.join(' '));
      assert.deepEqual(
        listed.filter((n) => !findModule(n) && !['migrator', 'emit_upstart'].includes(n)),
        [],
      );
      assert.doesNotMatch(st.out, /Could not find module named/);
      assert.equal(lines(root, 'var/tmp/runcmd-count'), 2, 'the modules ran');
      rmSync(join(root, 'etc/cloud/cloud.cfg'));
    },
  );

  await t.test(
    'init-local sets the running hostname of its UTS namespace, through procfs or, without /proc, hostname(1)',
    () => {
      for (const [iid, name, proc] of [
        ['iid-e2e-5', 'kiln-uts-proc', 'mount -t proc proc /proc && '],
        ['iid-e2e-6', 'kiln-uts-cmd', ''],
      ]) {
        writeFileSync(
          join(root, 'var/lib/cloud/seed/nocloud/meta-data'),
          `instance-id: ${iid}\nlocal-hostname: ${name}\n`,
        );
        const r = inRoot(root, ['/bin/sh', '-c', `${proc}/usr/bin/cloud-init init --local >/dev/null 2>&1; hostname`]);
        assert.equal(r.out, `${name}\n`, r.err);
        const started = readFileSync(join(root, 'var/log/cloud-init.log'), 'utf8').includes(
          `Running command hostname ${name}`,
        );
        assert.equal(
          started,
          proc === '',
          proc ? 'procfs is written, hostname(1) is not started' : 'hostname(1) without /proc',
        );
      }
    },
  );
});
