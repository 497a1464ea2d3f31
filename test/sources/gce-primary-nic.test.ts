// GCELocal's primary NIC search: a lease on each candidate NIC in turn until the metadata server answers (newer
// cloud-init's DataSourceGCE), for real in network namespaces: eth0 leads to a link where nothing answers DHCP,
// eth1 to the cloud (busybox udhcpd and the GCE mock on 169.254.169.254). The host's network is never touched.
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { gceCandidateNics } from '../../src/sources/gce-primary-nic';
import { Logger } from '../../src/util/log';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import {
  BUSYBOX,
  DEFAULT_DHCP_OPTIONS,
  makeLab,
  playRole,
  roleEnv,
  serveMetadataInLab,
  sh,
  type Lab,
} from '../helpers/netns-lab';
import { tempDir } from '../helpers/temp';

// This file also runs as the processes the lab needs (kiln, the mock metadata server): see playRole.
if (!(await playRole())) registerTests();

const GCE_TREE = join(FIXTURES, 'sources/gce/happy-path/tree');
const NICS = { eth0: '42:01:0a:80:00:09', eth1: '42:01:0a:80:00:02' };

/** A fake /sys/class/net in ROOT: NAME → [mac, carrier, operstate]. */
function fakeNics(root: string, nics: Record<string, [string, string, string]>): void {
  for (const [name, [mac, carrier, operstate]] of Object.entries(nics)) {
    mkdirSync(join(root, 'sys/class/net', name), { recursive: true });
    writeFileSync(join(root, 'sys/class/net', name, 'address'), `${mac}\n`);
    writeFileSync(join(root, 'sys/class/net', name, 'carrier'), `${carrier}\n`);
    writeFileSync(join(root, 'sys/class/net', name, 'operstate'), `${operstate}\n`);
  }
}

/** The GCE mock on 169.254.169.254:80 in the cloud's namespace; resolves once it listens. */
async function serveGce(t: TestContext, lab: Lab): Promise<ChildProcess> {
  return serveMetadataInLab(t, lab, ['--kind', 'gce', '--dir', GCE_TREE, '--listen', '169.254.169.254:80']);
}

/** A sandbox root of busybox (sh, ip, udhcpc), GCE's DMI, a fake sysfs with eth0 and eth1, a Debian os-release. */
function makeRoot(t: TestContext): string {
  const root = tempDir(t);
  for (const d of [
    'bin',
    'sbin',
    'etc/cloud',
    'etc/network',
    'run',
    'tmp',
    'var/lib/cloud',
    'var/log',
    'sys/class/dmi/id',
    'proc',
  ])
    mkdirSync(join(root, d), { recursive: true });
  cpSync(BUSYBOX, join(root, 'bin/busybox'));
  for (const applet of ['sh', 'ip', 'udhcpc', 'cat', 'true', 'kill']) symlinkSync('busybox', join(root, 'bin', applet));
  for (const tool of ['ifup', 'ifdown', 'ifquery']) {
    writeFileSync(join(root, 'sbin', tool), '#!/bin/sh\nexit 0\n');
    chmodSync(join(root, 'sbin', tool), 0o755);
  }
  writeFileSync(join(root, 'etc/network/interfaces'), 'source /etc/network/interfaces.d/*\n');
  writeFileSync(
    join(root, 'etc/os-release'),
    'ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n',
  );
  for (const [k, v] of Object.entries({
    sys_vendor: 'Google',
    product_name: 'Google Compute Engine',
    product_serial: 'GoogleCloud-1',
  }))
    writeFileSync(join(root, 'sys/class/dmi/id', k), `${v}\n`);
  fakeNics(root, { eth0: [NICS.eth0, '1', 'up'], eth1: [NICS.eth1, '1', 'up'] });
  writeFileSync(join(root, 'proc/cmdline'), 'root=/dev/sda1 ro\n');
  writeFileSync(
    join(root, 'etc/cloud/cloud.cfg'),
    'datasource_list: [GCE, None]\ndatasource:\n  GCE:\n    metadata_url: http://169.254.169.254/computeMetadata/v1/\n    retries: 1\n    timeout: 2\n    max_wait: 4\ncloud_init_modules: []\nsystem_info:\n  network:\n    renderers: [eni]\n',
  );
  return root;
}

function registerTests(): void {
  test("candidate NICs in cloud-init's order: ens4 first, then connected (eth0 leading, natural order), then possibly connected", async (t) => {
    const root = tempDir(t);
    fakeNics(root, {
      eth10: ['42:00:00:00:00:0a', '1', 'up'],
      eth2: ['42:00:00:00:00:02', '1', 'up'],
      eth0: ['42:00:00:00:00:01', '1', 'up'],
      ens4: ['42:00:00:00:00:04', '0', 'down'],
      ens5: ['42:00:00:00:00:05', '0', 'down'],
      veth9: ['42:00:00:00:00:09', '1', 'up'],
    });
    const platform = new LinuxPlatform({ root, log: new Logger().for('test') });
    assert.deepEqual(await gceCandidateNics(platform), ['ens4', 'eth0', 'eth2', 'eth10', 'ens5']);
    assert.deepEqual(
      await gceCandidateNics(new LinuxPlatform({ root: tempDir(t), log: new Logger().for('test') })),
      [],
      'no sysfs: no candidates (the fallback NIC is used)',
    );
  });

  test('init-local on GCE DMI: no DHCP answer on eth0, so the lease is tried on eth1, where the metadata server answers', {
    timeout: 120_000,
  }, async (t) => {
    if (
      !need(
        t,
        isRoot() && hasCommand('ip') && existsSync(BUSYBOX),
        'needs root, iproute2 and busybox-static (udhcpd, udhcpc) to build network namespaces',
      )
    )
      return;
    // The lab's NIC (to udhcpd and the mock) becomes eth1; a new eth0 leads to a peer where nothing serves DHCP.
    const lab = makeLab(t, { mac: NICS.eth1, dhcp: DEFAULT_DHCP_OPTIONS });
    sh(['ip', '-n', lab.client, 'link', 'set', 'eth0', 'name', 'eth1']);
    sh([
      'ip',
      '-n',
      lab.client,
      'link',
      'add',
      'eth0',
      'address',
      NICS.eth0,
      'type',
      'veth',
      'peer',
      'name',
      'silent0',
      'netns',
      lab.server,
    ]);
    sh(['ip', '-n', lab.server, 'link', 'set', 'silent0', 'up']);
    await serveGce(t, lab);
    const root = makeRoot(t);
    const r = spawnSync('ip', ['netns', 'exec', lab.client, process.execPath, process.argv[1] as string], {
      env: roleEnv('kiln', ['init', '--local', '--root', root]),
      encoding: 'utf8',
      timeout: 100_000,
    });
    const log = existsSync(join(root, 'var/log/cloud-init.log'))
      ? readFileSync(join(root, 'var/log/cloud-init.log'), 'utf8')
      : '';
    assert.notEqual(r.status, 1, `${r.stdout}\n${r.stderr}\n${log}`);
    assert.match(log, /looking for the primary NIC in: eth0, eth1/);
    assert.match(log, /no metadata through candidate NIC eth0: .*no DHCP answer on eth0/);
    assert.match(log, /primary NIC found: eth1/);
    assert.match(log, /Found datasource GCE/);
    const data = JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
      v1: { cloud_name: string; instance_id: string };
    };
    assert.deepEqual([data.v1.cloud_name, data.v1.instance_id], ['gce', '5822432891731066937']);
    // Both leases are gone: no address is left on either NIC.
    assert.doesNotMatch(sh(['ip', '-n', lab.client, '-4', '-o', 'addr', 'show']), /eth[01]\s+inet /);
  });
}
