// kiln on a real boot: Debian bookworm with a kernel, kiln installed from its .deb (or `kiln install --root`), a
// NoCloud seed made by `kiln make-seed`, booted under qemu; the first boot, a reboot of the same disk, and a boot with
// the seed served over the network. Either way the units are cloud-init 25.1's: cloud-init-main.service runs every
// stage in one process, each stage started by its unit over the stage sockets.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { copyBootRootfs, type DebianSuite } from '../helpers/debian-rootfs';
import { buildDebForTest } from '../helpers/deb-package';
import {
  assertFirstBootOfSeed,
  assertHealthyBoot,
  cryptMatches,
  firstBootProbe,
  firstBootUserData,
  META_DATA,
  one,
  tagged,
} from '../helpers/first-boot-probe';
import {
  EMULATED_EXECUTE_COMMAND,
  installPackerEmulation,
  stepReports,
  type EmulatedBuild,
} from '../helpers/packer-emulation';
import { readProvisioners } from '../helpers/packer-template';
import {
  bootQemu,
  consoleTail,
  installProbeUnit,
  makeBootImage,
  maskSerialGetty,
  type BootImage,
  type BootOptions,
  type BootResult,
} from '../helpers/qemu-boot';
import { builtBinary, REPO } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { removeTree } from '../helpers/overlay-copy';

const kiln = builtBinary('kiln-linux-x64');
/**
 * One boot's hard limit: a TCG boot takes 30–90 s on a quiet host, but close to 240 s on one whose two cores also run
 * other work (seen: the probe's last line at 232 s); a stall must fail the test, never hang the suite.
 */
const BOOT_TIMEOUT_MS = Number(process.env.KILN_BOOT_TIMEOUT_MS ?? 360_000);

function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0)
    throw new Error(
      `${cmd} ${args.join(' ')} failed (${r.status ?? r.error?.message}): ${(r.stderr || r.stdout).slice(-2000)}`,
    );
  return r.stdout;
}

/**
 * A disk of the boot rootfs with kiln and the probe unit: from kiln's .deb, installed by dpkg -i in the rootfs (which
 * fails on a dependency the image lacks), or by kiln's own `install` verb, in the bootable tree of SUITE.
 */
function prepareImage(work: string, name: string, by: 'deb' | 'install', suite: DebianSuite = 'bookworm'): BootImage {
  const dir = join(work, name);
  const root = join(dir, 'rootfs');
  mkdirSync(root, { recursive: true });
  copyBootRootfs(root, { suite });
  const inRoot = (script: string) =>
    sh('unshare', [
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
    ]);
  if (by === 'deb') {
    const deb = buildDebForTest({
      target: 'linux-x64',
      binaryFile: kiln as string,
      outDir: join(dir, 'deb'),
      work: join(dir, 'deb-work'),
    });
    copyFileSync(deb, join(root, 'tmp/kiln.deb'));
    inRoot('dpkg -i /tmp/kiln.deb && rm /tmp/kiln.deb');
  } else sh(kiln as string, ['install', '--root', root]);
  installProbeUnit(root, 'kiln-boot-probe', firstBootProbe('ttyS0'));
  maskSerialGetty(root);
  const image = makeBootImage(root, dir);
  removeTree(root);
  return image;
}

const DEBIAN_TEMPLATE = join(REPO, 'images/packer/debian-kiln.pkr.hcl');

/**
 * The disk a Packer build of the Debian template starts from, as near as the bootable tree allows: Debian's cloud
 * image has Debian's cloud-init, which runs the build VM's first boot from the build seed; the bookworm boot tree has
 * none, so kiln installed with `kiln install --root` stands in for it (the install script then meets kiln, not
 * Debian's package: `--replace` has nothing to take over and installs as without it). The build is acted out by the
 * driver of test/helpers/packer-emulation.ts with the template's own scripts; the probe takes over once it is done.
 */
function preparePackerImage(work: string): { image: BootImage; build: EmulatedBuild } {
  const dir = join(work, 'packer');
  const root = join(dir, 'rootfs');
  mkdirSync(root, { recursive: true });
  copyBootRootfs(root);
  sh(kiln as string, ['install', '--root', root]);
  installProbeUnit(root, 'kiln-boot-probe', firstBootProbe('ttyS0'));
  maskSerialGetty(root);
  const build = installPackerEmulation(root, DEBIAN_TEMPLATE, { 'var.kiln_binary': kiln as string }, 'kiln-boot-probe');
  const image = makeBootImage(root, dir);
  removeTree(root);
  return { image, build };
}

/** The console lines of a Packer emulation boot (the driver's and kiln's), for assertion messages. */
function packerReport(result: BootResult): string {
  return consoleTail(
    result.lines.filter((l) => /PACKER-|cloud-init\[|Cloud-init v\./.test(l.text)),
    120,
  );
}

/**
 * Where the guest reaches the host's metadata server (a guestfwd address in the user-mode network, as README's CI
 * loop).
 */
const CI_LOOP_ADDRESS = '10.0.2.100';

/**
 * `kiln devel serve-metadata --kind nocloud` on a free loopback port, waiting for a phone-home report for up to
 * SECONDS.
 */
async function serveSeed(
  dir: string,
  seconds: number,
): Promise<{ child: ChildProcess; port: number; exited: Promise<number | null>; output: () => string }> {
  const child = spawn(
    kiln as string,
    [
      'devel',
      'serve-metadata',
      '--kind',
      'nocloud',
      '--dir',
      dir,
      '--listen',
      '127.0.0.1:0',
      '--exit-after-phone-home',
      '--exit-after',
      String(seconds),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (b: Buffer) => void (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => void (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (let i = 0; i < 500 && !/ at http:\/\/127\.0\.0\.1:\d+/.test(out) && child.exitCode === null; i++)
    await new Promise((r) => setTimeout(r, 20));
  const port = Number(/ at http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
  assert.ok(port > 0, `serve-metadata did not start: ${out}`);
  return { child, port, exited, output: () => out };
}

/**
 * Boots IMAGE with SEED (or the network seed MORE names) until the probe powers the guest off, keeping the timestamped
 * console in LOG.
 */
async function bootOnce(
  image: BootImage,
  seed: string | undefined,
  log: string,
  more: Pick<BootOptions, 'smbios' | 'guestForwards'> = {},
): Promise<BootResult> {
  // systemd's status lines on the console can land inside the probe's long lines (trixie's systemd prints more of
  // them): without them, what the probe prints arrives whole.
  const result = await bootQemu({
    image,
    ...(seed ? { seed } : {}),
    ...more,
    append: 'systemd.show_status=false',
    timeoutMs: BOOT_TIMEOUT_MS,
    logFile: log,
  });
  assert.ok(
    tagged(result.lines, 'PROBE-END').length > 0,
    `the guest powered off before the probe finished\n${consoleTail(result.lines)}`,
  );
  return result;
}

describe('kiln on a real boot (qemu)', { concurrency: false }, () => {
  let work = '';
  let seed = '';
  /** The disk the Packer emulation left ready to capture, and the build VM's machine id. */
  let captured: { image: BootImage; buildMachineId: string } | undefined;
  const ready = () =>
    isRoot() &&
    kiln !== undefined &&
    hasCommand('qemu-system-x86_64') &&
    hasCommand('debootstrap') &&
    hasCommand('mkfs.ext4') &&
    hasCommand('sfdisk') &&
    hasCommand('busybox');
  const why =
    'needs root, dist/kiln-linux-x64 (node build.mjs linux-x64), qemu-system-x86_64, debootstrap, mkfs.ext4, sfdisk and busybox';

  before(() => {
    if (!ready()) return;
    work = mkdtempSync('/var/tmp/kiln-boot-');
    const seedDir = join(work, 'seed');
    mkdirSync(seedDir);
    writeFileSync(join(seedDir, 'user-data'), firstBootUserData('ttyS0'));
    writeFileSync(join(seedDir, 'meta-data'), META_DATA);
    seed = join(work, 'seed.iso');
    sh(kiln as string, ['make-seed', '-o', seed, seedDir]);
  });
  after(() => {
    if (work && process.env.KILN_BOOT_KEEP !== '1') removeTree(work);
  });

  it('first boot from the .deb runs every stage and module in cloud-init-main.service, each started by its unit, and a reboot runs only the per-boot scripts again', {
    timeout: 3 * BOOT_TIMEOUT_MS + 300_000,
  }, async (t) => {
    if (!need(t, ready(), why)) return;
    const image = prepareImage(work, 'four', 'deb');

    const first = await bootOnce(image, seed, join(work, 'four-boot1.log'));
    t.diagnostic(`first boot: ${first.seconds.toFixed(1)} s`);
    assertFirstBootOfSeed(first);
    const debian =
      tagged(first.lines, 'PROBE-SHADOW')
        .find((v) => v.startsWith('debian:'))
        ?.replace(/^debian:/, '') ?? '';
    assert.ok(cryptMatches('kilnlab-default', debian), `the default user's password hash does not match: ${debian}`);
    assert.equal(one(first, 'PROBE-SUDOERS'), '1');
    assert.deepEqual(tagged(first.lines, 'KILN-PER-BOOT-RAN'), ['1']);

    const second = await bootOnce(image, seed, join(work, 'four-boot2.log'));
    t.diagnostic(`second boot: ${second.seconds.toFixed(1)} s`);
    assertHealthyBoot(second);
    assert.deepEqual(tagged(second.lines, 'KILN-PER-BOOT-RAN'), ['2'], 'the per-boot script did not run again');
    assert.deepEqual(tagged(second.lines, 'KILN-PER-INSTANCE-RAN'), [], 'the per-instance script ran again');
    assert.deepEqual(tagged(second.lines, 'KILN-RUNCMD-RAN'), [], 'runcmd ran again');
    assert.equal(one(second, 'PROBE-PER-INSTANCE-LOG'), '1');
    assert.equal(one(second, 'PROBE-HOSTNAME'), 'kiln-boot-guest');
  });

  // Debian 13, whose cloud-init 25.1 kiln follows: the same .deb, seed and checks on trixie's kernel and systemd.
  it('first boot on Debian 13 (trixie) from the .deb runs every stage and module as on bookworm', {
    timeout: BOOT_TIMEOUT_MS + 600_000,
  }, async (t) => {
    if (!need(t, ready(), why)) return;
    const image = prepareImage(work, 'trixie', 'deb', 'trixie');
    const first = await bootOnce(image, seed, join(work, 'trixie-boot1.log'));
    t.diagnostic(`trixie first boot: ${first.seconds.toFixed(1)} s`);
    assertFirstBootOfSeed(first);
  });

  // images/packer/debian-kiln.pkr.hcl's scripts on a real boot (packer build itself cannot run here): the build VM's
  // first boot from the template's build seed, the steps up to the reboot, the boot after it with the check and the
  // capture preparation; the captured disk is the one the next test boots from a network seed, a new first boot.
  it('a Packer build of the Debian template, acted out in the guest with its own scripts, leaves a disk ready to capture', {
    timeout: 2 * BOOT_TIMEOUT_MS + 300_000,
  }, async (t) => {
    if (!need(t, ready(), why)) return;
    // The emulation runs each script as the template's execute_command does.
    const hcl = readFileSync(DEBIAN_TEMPLATE, 'utf8');
    assert.equal(/^\s*sudo_sh\s*=\s*"(.*)"$/m.exec(hcl)?.[1], EMULATED_EXECUTE_COMMAND);
    for (const p of readProvisioners(DEBIAN_TEMPLATE).filter((p) => p.type === 'shell'))
      assert.equal(p.executeCommand, 'local.sudo_sh', `${p.scripts.join(' ')}`);
    const { image, build } = preparePackerImage(work);
    const buildSeed = join(work, 'packer-build-seed.iso');
    sh(kiln as string, ['make-seed', '-o', buildSeed, join(REPO, 'images/packer/debian-seed')]);
    const assertSteps = (result: BootResult, steps: EmulatedBuild['boots'][number], rebootsAtEnd: boolean) => {
      const reports = stepReports(result.lines);
      for (const [i, step] of steps.entries()) {
        const r = reports.get(step.name);
        // The reboot's own exit code may not reach the console: the reboot stops the driver.
        if (rebootsAtEnd && i === steps.length - 1 && r?.rc === undefined) continue;
        assert.equal(
          r?.rc,
          '0',
          `Packer step ${step.name} (${step.script}) exited ${r?.rc ?? '(no exit code: it did not run or did not finish)'}:\n${r?.output ?? ''}\n--- console ---\n${packerReport(result)}`,
        );
      }
    };

    const first = await bootQemu({
      image,
      seed: buildSeed,
      append: 'systemd.show_status=false',
      timeoutMs: BOOT_TIMEOUT_MS,
      logFile: join(work, 'packer-boot1.log'),
    });
    t.diagnostic(`build VM, first boot: ${first.seconds.toFixed(1)} s`);
    assert.deepEqual(tagged(first.lines, 'PACKER-BOOT'), ['1'], packerReport(first));
    assertSteps(first, build.boots[0], true);
    assert.deepEqual(
      tagged(first.lines, 'PACKER-END'),
      [],
      `the build stopped in its first boot\n${packerReport(first)}`,
    );

    // Packer keeps the build seed attached through the reboot.
    const second = await bootQemu({
      image,
      seed: buildSeed,
      append: 'systemd.show_status=false',
      timeoutMs: BOOT_TIMEOUT_MS,
      logFile: join(work, 'packer-boot2.log'),
    });
    t.diagnostic(`build VM, after the reboot: ${second.seconds.toFixed(1)} s`);
    assert.deepEqual(tagged(second.lines, 'PACKER-BOOT'), ['2'], packerReport(second));
    assertSteps(second, build.boots[1], false);
    assert.deepEqual(tagged(second.lines, 'PACKER-END'), [''], packerReport(second));
    assert.equal(
      one(second, 'PACKER-SSHD-PASSWORDAUTHENTICATION'),
      'no',
      'the captured image lets SSH logins in with a password',
    );
    assert.doesNotMatch(one(second, 'PACKER-SSHD-DROPINS'), /50-cloud-init\.conf/);
    const check = JSON.parse(
      Buffer.from(tagged(second.lines, 'PACKER-CHECK-JSON-B64').join(''), 'base64').toString('utf8'),
    ) as { findings: Array<{ severity: string; message: string }> };
    assert.deepEqual(
      check.findings.filter((f) => f.severity === 'error'),
      [],
      'kiln check finds what blocks the capture',
    );
    assert.notEqual(one(second, 'PACKER-CHECK-RC'), '1');
    captured = { image, buildMachineId: one(second, 'PACKER-MACHINE-ID') };
    assert.match(captured.buildMachineId, /^[0-9a-f]{32}$/);
  });

  // README's CI loop, as written there: the seed served by `kiln devel serve-metadata` on the host's loopback, its URL
  // in the DMI serial (NoCloud-net), the guest reaching it through a guestfwd of the user-mode NIC; the server exits 0
  // when the guest's phone_home posts its report.
  it('first boot installed by `kiln install` runs every stage, its seed served over the network, and phones home', {
    timeout: BOOT_TIMEOUT_MS + 300_000,
  }, async (t) => {
    if (!need(t, ready(), why)) return;
    if (!captured) t.diagnostic('no disk captured by the Packer emulation: booting a fresh one');
    const image = captured?.image ?? prepareImage(work, 'all-stages', 'install');
    const served = join(work, 'served-seed');
    mkdirSync(served);
    writeFileSync(join(served, 'meta-data'), META_DATA);
    writeFileSync(
      join(served, 'user-data'),
      `${firstBootUserData('ttyS0')}phone_home:\n  url: http://${CI_LOOP_ADDRESS}/phone-home/$INSTANCE_ID\n  post: [instance_id, hostname, pub_key_ed25519]\n`,
    );
    const server = await serveSeed(served, Math.ceil(BOOT_TIMEOUT_MS / 1000));
    t.after(() => void server.child.kill('SIGKILL'));
    const boot = await bootOnce(image, undefined, join(work, 'all-stages-boot1.log'), {
      smbios: [`type=1,serial=ds=nocloud;s=http://${CI_LOOP_ADDRESS}/`],
      // A command per connection (busybox's nc): a `tcp:` chardev target is one stream, so only the first connection
      // got through.
      guestForwards: [`tcp:${CI_LOOP_ADDRESS}:80-cmd:busybox nc 127.0.0.1 ${server.port}`],
    });
    t.diagnostic(`all-stages boot: ${boot.seconds.toFixed(1)} s`);
    // A network datasource on ifupdown: the network stage brings the interface up again, and ifup's "already
    // configured" on stderr is a warning (degraded done), as with cloud-init's own ifupdown activator.
    assertHealthyBoot(boot, /^WARNING: Running \['ifup', 'enp0s1'\] resulted in stderr output: /);
    assert.equal(one(boot, 'KILN-RUNCMD-RAN'), 'written by write_files');
    assert.equal(one(boot, 'PROBE-HOSTNAME'), 'kiln-boot-guest');
    assert.deepEqual(tagged(boot.lines, 'KILN-PER-INSTANCE-RAN'), ['1']);
    assert.equal(await server.exited, 0, server.output());
    assert.match(server.output(), /^\S+ GET \/meta-data 200$/m);
    assert.match(server.output(), /^\S+ GET \/user-data 200$/m);
    const report = /^phone-home from \S+ \(\/phone-home\/iid-kiln-boot-1\): (.*)$/m.exec(server.output())?.[1];
    assert.ok(report, server.output());
    const fields = JSON.parse(report) as Record<string, string>;
    assert.equal(fields.instance_id, 'iid-kiln-boot-1');
    // phone_home posts the datasource's name (25.1's cloud.get_hostname(): the meta-data's local-hostname), not the
    // user data's `hostname`, which is what the guest calls itself.
    assert.equal(fields.hostname, 'kiln-boot-meta');
    // The key the guest's sshd serves (the probe prints it), not the image's or a made-up one.
    assert.match(fields.pub_key_ed25519 ?? '', /^ssh-ed25519 AAAA\S+/);
    const posted = spawnSync('ssh-keygen', ['-lf', '-'], {
      input: `${fields.pub_key_ed25519}\n`,
      encoding: 'utf8',
    }).stdout.split(/\s+/)[1];
    const sshd = tagged(boot.lines, 'PROBE-HOSTKEY-SERVED')
      .find((l) => l.endsWith('(ED25519)'))
      ?.split(/\s+/)[1];
    assert.ok(posted && posted === sshd, `posted ${posted}, sshd serves ${sshd}`);
    if (captured) {
      // A new first boot of the captured image: only this instance's state, a machine id of its own.
      assert.equal(one(boot, 'PROBE-INSTANCES'), 'iid-kiln-boot-1', 'the build instance left state behind');
      const machineId = one(boot, 'PROBE-MACHINE-ID');
      assert.match(machineId, /^[0-9a-f]{32}$/);
      assert.notEqual(machineId, captured.buildMachineId, "the image kept the build VM's machine id");
    }
  });
});
