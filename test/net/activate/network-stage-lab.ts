// What the network-stage namespace tests share: a second NIC in the lab, a copy of the cached Debian rootfs seeded
// with NoCloud and a network-config (no modules: only the network step), and kiln's init stage run in the machine's
// namespace with that namespace's sysfs as the root's /sys, as on a booted machine.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { copyRootfs } from '../../helpers/debian-rootfs';
import { BUSYBOX, roleEnv, sh, type Lab } from '../../helpers/netns-lab';
import { hasCommand, isRoot, need } from '../../helpers/requirements';
import { tempDir } from '../../helpers/temp';

export function canRunNetworkStage(t: TestContext): boolean {
  return need(
    t,
    isRoot() &&
      hasCommand('ip') &&
      hasCommand('unshare') &&
      hasCommand('chroot') &&
      hasCommand('debootstrap') &&
      existsSync(BUSYBOX),
    'needs root, iproute2, unshare, chroot, debootstrap (the cached Debian rootfs) and busybox (udhcpd) for network namespaces',
  );
}

/** A second veth pair: NAME (MAC) in the machine, vs1 (10.198.0.1/24) in the cloud. */
export function addSecondNic(lab: Lab, name: string, mac: string): void {
  sh([
    'ip',
    '-n',
    lab.client,
    'link',
    'add',
    name,
    'address',
    mac,
    'type',
    'veth',
    'peer',
    'name',
    'vs1',
    'netns',
    lab.server,
  ]);
  sh(['ip', '-n', lab.server, 'addr', 'add', '10.198.0.1/24', 'dev', 'vs1']);
  sh(['ip', '-n', lab.server, 'link', 'set', 'vs1', 'up']);
}

/** A copy of the Debian rootfs with a NoCloud seed (instance NAME, NETWORK_CONFIG) and CONFIG in cloud.cfg.d. */
export function nocloudNetworkRoot(t: TestContext, name: string, networkConfig: string, config = ''): string {
  const root = copyRootfs(tempDir(t, `kiln-${name}-`));
  const seed = join(root, 'var/lib/cloud/seed/nocloud');
  mkdirSync(seed, { recursive: true });
  writeFileSync(join(seed, 'meta-data'), `instance-id: i-${name}\n`);
  writeFileSync(join(seed, 'user-data'), '');
  writeFileSync(join(seed, 'network-config'), networkConfig);
  writeFileSync(
    join(root, `etc/cloud/cloud.cfg.d/99-${name}-test.cfg`),
    `datasource_list: [NoCloud]\ncloud_init_modules: []\n${config}`,
  );
  return root;
}

/**
 * kiln's init (network) stage in the machine's namespace (the calling test file started again as kiln: see
 * playRole); its exit code, output, log and how long it took.
 */
export function runInitStage(
  lab: Lab,
  root: string,
): { code: number | null; output: string; log: string; seconds: number } {
  const started = Date.now();
  const script = 'mount -t sysfs sysfs "$0/sys" && exec "$@"';
  const r = spawnSync(
    'ip',
    [
      'netns',
      'exec',
      lab.client,
      'unshare',
      '--mount',
      '/bin/sh',
      '-c',
      script,
      root,
      process.execPath,
      process.argv[1] as string,
    ],
    {
      env: roleEnv('kiln', ['init', '--root', root]),
      encoding: 'utf8',
      timeout: 400_000,
    },
  );
  const logFile = join(root, 'var/log/cloud-init.log');
  return {
    code: r.status,
    output: `${r.stdout}\n${r.stderr}`,
    log: existsSync(logFile) ? readFileSync(logFile, 'utf8') : '',
    seconds: (Date.now() - started) / 1000,
  };
}
