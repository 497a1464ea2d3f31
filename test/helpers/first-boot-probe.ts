// The first-boot seed, the probe an image reports through on its serial console, and the checks of what it
// reported: shared by the qemu first-boot test (amd64) and the arm64 boot soak, whose consoles are different devices.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { consoleTail, type BootResult, type ConsoleLine } from './qemu-boot';

export const META_DATA = 'instance-id: iid-kiln-boot-1\nlocal-hostname: kiln-boot-meta\n';

/**
 * The seed's user data: users, passwords, a hostname, write_files, runcmd, a per-boot and a per-instance script
 * (written by write_files, run by the final stage), and what the stall of issue 24 had: a runcmd that starts
 * `cloud-init status --wait` with systemd-run while the final stage is still running.
 */
export function firstBootUserData(tty: string): string {
  return `#cloud-config
hostname: kiln-boot-guest
# C.UTF-8 needs no locale-gen: Debian's locale-gen ignores its argument, so en_US.UTF-8 (the default) fails
# update-locale on an image whose /etc/locale.gen enables nothing, for Debian's cloud-init as for kiln.
locale: C.UTF-8
chpasswd:
  expire: false
  users:
    - {name: tester, password: kilnlab-tester, type: text}
    - {name: debian, password: kilnlab-default, type: text}
ssh_pwauth: true
users:
  - default
  - name: tester
    shell: /bin/bash
    groups: [sudo]
    sudo: "ALL=(ALL) NOPASSWD:ALL"
write_files:
  - path: /var/lib/kiln-boot/marker
    content: "written by write_files\\n"
  - path: /var/lib/cloud/scripts/per-boot/10-count.sh
    permissions: "0755"
    content: |
      #!/bin/sh
      echo boot >> /var/lib/kiln-boot/per-boot.log
      echo "KILN-PER-BOOT-RAN $(wc -l < /var/lib/kiln-boot/per-boot.log)" > /dev/${tty}
  - path: /var/lib/cloud/scripts/per-instance/10-count.sh
    permissions: "0755"
    content: |
      #!/bin/sh
      echo instance >> /var/lib/kiln-boot/per-instance.log
      echo "KILN-PER-INSTANCE-RAN $(wc -l < /var/lib/kiln-boot/per-instance.log)" > /dev/${tty}
runcmd:
  - [sh, -c, 'echo "KILN-RUNCMD-RAN $(cat /var/lib/kiln-boot/marker)" > /dev/${tty}']
  - [systemd-run, --no-block, --unit=kiln-status-wait, sh, -c, 'cloud-init status --wait >/dev/null 2>&1; echo "KILN-RUNCMD-STATUS-WAIT $?" > /dev/${tty}']
`;
}

/**
 * A unit of the image (not of kiln) that reports on every boot, on the serial console: what `cloud-init status
 * --wait` says, the stages' record, the hostname, the accounts, the host keys and the keys sshd serves; then a
 * heartbeat to show the guest keeps running, and a poweroff (qemu runs with -no-reboot, so that ends the boot).
 */
export function firstBootProbe(tty: string): string {
  return `#!/bin/sh
# Each line opens the console afresh: a serial getty's vhangup() on the console cuts off descriptors opened before it.
say() { printf '%s\\n' "$*" > /dev/${tty}; }
tagged() { while IFS= read -r line; do say "$1 $line"; done; }
say "PROBE-BEGIN"
out=$(timeout 300 cloud-init status --wait --long 2>&1); rc=$?
echo "$out" | tagged 'PROBE-STATUS|'
say "PROBE-STATUS-RC $rc"
# In base64 lines well under the tty's 2048-byte write chunk: a longer write can be split there by another writer.
base64 -w 600 /run/cloud-init/status.json | tagged 'PROBE-STATUS-JSON-B64'
say "PROBE-HOSTNAME $(hostname)"
say "PROBE-ARCH $(uname -m) $(dpkg --print-architecture)"
say "PROBE-INSTANCES $(ls /var/lib/cloud/instances | tr '\\n' ' ')"
say "PROBE-MACHINE-ID $(cat /etc/machine-id)"
say "PROBE-SHADOW $(getent shadow tester | cut -d: -f1,2)"
say "PROBE-SHADOW $(getent shadow debian | cut -d: -f1,2)"
say "PROBE-GROUPS $(id -nG tester)"
say "PROBE-SUDOERS $(grep -c '^tester ALL=(ALL) NOPASSWD:ALL$' /etc/sudoers.d/90-cloud-init-users 2>/dev/null)"
for k in /etc/ssh/ssh_host_*_key.pub; do say "PROBE-HOSTKEY-FILE $(ssh-keygen -lf "$k")"; done
say "PROBE-SSH-ACTIVE $(systemctl is-active ssh)"
ssh-keyscan -T 10 127.0.0.1 2>/dev/null | ssh-keygen -lf - | tagged PROBE-HOSTKEY-SERVED
say "PROBE-PER-BOOT-LOG $(wc -l < /var/lib/kiln-boot/per-boot.log)"
say "PROBE-PER-INSTANCE-LOG $(wc -l < /var/lib/kiln-boot/per-instance.log)"
say "PROBE-FAILED-UNITS $(systemctl list-units --failed --plain --no-legend | awk '{print $1}' | tr '\\n' ' ')"
# cloud-init 25.1's units: the one process (once it has exited after the last stage) and each stage unit's result.
timeout 60 sh -c 'while systemctl -q is-active cloud-init-main.service; do sleep 0.5; done'
say "PROBE-MAIN $(systemctl show -p Type --value cloud-init-main.service) $(systemctl show -p Result --value cloud-init-main.service) $(systemctl show -p ExecMainStatus --value cloud-init-main.service)"
for u in cloud-init-local.service cloud-init-network.service cloud-config.service cloud-final.service; do say "PROBE-STAGE-UNIT $u $(systemctl show -p Result --value $u) $(systemctl show -p ActiveEnterTimestampMonotonic --value $u)"; done
say "PROBE-MAIN-BANNERS $(journalctl -b -q --no-pager -o cat _SYSTEMD_UNIT=cloud-init-main.service | grep -c "^Cloud-init v\\. .* running '")"
i=0; while [ $i -lt 8 ]; do i=$((i+1)); say "PROBE-HB $i"; sleep 1; done
say "PROBE-END"
systemctl poweroff
`;
}

/** Values of the console lines that carry TAG (the rest of the line after "TAG "), wherever kernel output put it. */
export function tagged(lines: readonly ConsoleLine[], tag: string): string[] {
  // Not preceded by another tag's letters; anything else may come first (trixie's getty writes terminal queries,
  // `ESC[6n` and the like, onto the line a probe line then continues).
  const pattern = new RegExp(`(?<![A-Z-])${tag.replace(/[|\\^$.*+?()[\]{}]/g, '\\$&')}(?:\\s(.*))?$`);
  const out: string[] = [];
  for (const l of lines) {
    const m = pattern.exec(l.text);
    if (m) out.push((m[1] ?? '').trim());
  }
  return out;
}

/**
 * The lines the probe, the seed's scripts and kiln's stages wrote, for assertion messages (the tail is the shutdown).
 */
export function report(result: BootResult): string {
  return consoleTail(
    result.lines.filter((l) => /PROBE-|KILN-|cloud-init\[|Cloud-init v\./.test(l.text)),
    80,
  );
}

export function one(result: BootResult, tag: string): string {
  const values = tagged(result.lines, tag);
  assert.ok(values.length > 0, `no ${tag} line on the console\n${report(result)}`);
  return values[0] as string;
}

/** Host-side check of a crypt(3) hash with the host's perl (libcrypt knows yescrypt, Debian's default). */
export function cryptMatches(password: string, hash: string): boolean {
  return spawnSync('perl', ['-e', 'exit(crypt($ARGV[0], $ARGV[1]) eq $ARGV[1] ? 0 : 1)', password, hash]).status === 0;
}

/**
 * The assertions every boot shares: status done and exit 0, all four stages finished without errors, sshd up with the
 * keys on disk, the guest alive after.
 */
/**
 * The boot ran every stage without an error and sshd serves the host keys on disk. `status --wait` exits 0, or 2
 * (degraded done) when every warning the stages recorded matches ALLOWED_WARNING.
 */
export function assertHealthyBoot(result: BootResult, allowedWarning?: RegExp): void {
  const parts = tagged(result.lines, 'PROBE-STATUS-JSON-B64');
  assert.ok(parts.length > 0, `no PROBE-STATUS-JSON-B64 line on the console\n${report(result)}`);
  const status = JSON.parse(Buffer.from(parts.join(''), 'base64').toString('utf8')) as {
    v1: Record<
      string,
      | {
          start: number | null;
          finished: number | null;
          errors: string[];
          recoverable_errors?: Record<string, string[]>;
        }
      | unknown
    >;
  };
  const rc = one(result, 'PROBE-STATUS-RC');
  if (allowedWarning && rc === '2') {
    const warnings = Object.values(status.v1).flatMap((stage) =>
      Object.entries(
        (stage as { recoverable_errors?: Record<string, string[]> } | null)?.recoverable_errors ?? {},
      ).flatMap(([level, list]) => list.map((m) => `${level}: ${m}`)),
    );
    assert.ok(
      warnings.length > 0 && warnings.every((w) => allowedWarning.test(w)),
      `degraded by other warnings than ${allowedWarning}:\n${warnings.join('\n')}`,
    );
  } else {
    assert.equal(rc, '0', `cloud-init status --wait did not exit 0\n${report(result)}`);
  }
  // `status --wait` prints a dot per poll before its report, on the same line.
  assert.ok(
    tagged(result.lines, 'PROBE-STATUS|').some((v) => /(^|\.)status: done$/.test(v)),
    `status is not done\n${report(result)}`,
  );
  for (const stage of ['init-local', 'init', 'modules-config', 'modules-final']) {
    const s = status.v1[stage] as { start: number | null; finished: number | null; errors: string[] } | undefined;
    assert.ok(
      s && s.start !== null && s.finished !== null,
      `stage ${stage} did not run to the end: ${JSON.stringify(s)}`,
    );
    assert.deepEqual(s.errors, [], `stage ${stage} had errors`);
  }
  assert.equal(one(result, 'PROBE-SSH-ACTIVE'), 'active');
  const fingerprint = (line: string) => line.split(/\s+/)[1];
  const keyType = (line: string) => /\((\w+)\)$/.exec(line)?.[1] ?? line;
  const onDisk = new Map(tagged(result.lines, 'PROBE-HOSTKEY-FILE').map((l) => [keyType(l), fingerprint(l)]));
  const served = new Map(tagged(result.lines, 'PROBE-HOSTKEY-SERVED').map((l) => [keyType(l), fingerprint(l)]));
  // sshd's default HostKey list (RSA, ECDSA, Ed25519); a DSA file, which kiln makes as cloud-init 22.4 does, is not
  // served.
  assert.deepEqual(
    [...served.keys()].sort(),
    ['ECDSA', 'ED25519', 'RSA'],
    `sshd does not serve the three host key types\n${report(result)}`,
  );
  for (const [type, print] of served)
    assert.equal(print, onDisk.get(type), `sshd serves another ${type} key than /etc/ssh has`);
  assert.deepEqual(
    tagged(result.lines, 'PROBE-HB'),
    ['1', '2', '3', '4', '5', '6', '7', '8'],
    'the guest stopped making progress after cloud-init finished',
  );
  assert.equal(one(result, 'PROBE-FAILED-UNITS'), '', 'failed units');
  // cloud-init 25.1's units: one notify process ran the four stages (its journal has their four banners), each
  // started by its stage unit in boot order, every unit successful.
  assert.equal(one(result, 'PROBE-MAIN'), 'notify success 0', `cloud-init-main.service\n${report(result)}`);
  assert.equal(one(result, 'PROBE-MAIN-BANNERS'), '4', 'the four stages ran in cloud-init-main.service');
  const units = tagged(result.lines, 'PROBE-STAGE-UNIT').map((l) => l.split(/\s+/));
  assert.deepEqual(
    units.map((u) => `${u[0]} ${u[1]}`),
    [
      'cloud-init-local.service success',
      'cloud-init-network.service success',
      'cloud-config.service success',
      'cloud-final.service success',
    ],
  );
  const done = units.map((u) => Number(u[2]));
  assert.ok(
    done.every((v, i) => v > 0 && (i === 0 || v > (done[i - 1] as number))),
    `the stage units finished out of order: ${done.join(' ')}`,
  );
}

/**
 * What a first boot of the seed leaves: a healthy boot, runcmd run after write_files, the host name, tester's password
 * and groups, the per-instance script once.
 */
export function assertFirstBootOfSeed(first: BootResult): void {
  assertHealthyBoot(first);
  assert.equal(one(first, 'KILN-RUNCMD-RAN'), 'written by write_files');
  assert.equal(one(first, 'KILN-RUNCMD-STATUS-WAIT'), '0');
  assert.equal(one(first, 'PROBE-HOSTNAME'), 'kiln-boot-guest');
  const tester = one(first, 'PROBE-SHADOW').replace(/^tester:/, '');
  assert.ok(cryptMatches('kilnlab-tester', tester), `tester's password hash does not match: ${tester}`);
  assert.match(one(first, 'PROBE-GROUPS'), /\bsudo\b/);
  assert.deepEqual(tagged(first.lines, 'KILN-PER-INSTANCE-RAN'), ['1']);
}
