// VMware's init-stage setup (cloud-init's DataSourceVMware.setup): the host info read in a network namespace of the
// test's own is compared with what Debian's cloud-init 22.4 (get_host_info, netifaces) reads there, and setup
// publishes local-ipv4 through a fake vmware-rpctool. The namespace and a private mount namespace (the fake tool
// on a tmpfs over /usr/local/bin) are the test's own: the host's network and files are not touched.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { InstanceData } from '../../src/sources/datasource';
import { ipv6Netmask, readHostInfo } from '../../src/sources/vmware/host-info';
import { mergeMissing } from '../../src/sources/merge-many-dict';
import { vmwareSource } from '../../src/sources/vmware/vmware-source';
import { Logger } from '../../src/util/log';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { sh } from '../helpers/netns-lab';
import { tempDir } from '../helpers/temp';

const ROLE = 'KILN_TEST_VMWARE_ROLE';
const MAC = '00:50:56:aa:bb:cc';

// Started again inside the namespace: print the host info, or run setup on the metadata given, as JSON.
if (process.env[ROLE]) {
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root: '/', log });
  if (process.env[ROLE] === 'host-info') process.stdout.write(JSON.stringify(await readHostInfo(platform, log)));
  else {
    const data: InstanceData = {
      instanceId: 'vm-1',
      cloudName: 'vmware',
      platform: 'vmware',
      subplatform: 'guestinfo (guestinfo.metadata)',
      publicKeys: [],
      metadata: JSON.parse(process.env.KILN_TEST_VMWARE_MD ?? '{}') as Record<string, unknown>,
    };
    const out = await vmwareSource.setup?.({ platform, log, settings: {} }, data, true);
    process.stdout.write(JSON.stringify(out ?? null));
  }
  process.exit(0);
} else registerTests();

/** A namespace whose eth0 (MAC, 10.0.0.5/24, 2001:db8::5/64) has default routes of both families; a peer beside it. */
function namespace(t: TestContext): string {
  const ns = `kiln-vmw-${process.pid}-${Math.random().toString(36).slice(2, 7)}`;
  sh(['ip', 'netns', 'add', ns]);
  t.after(() => void spawnSync('ip', ['netns', 'del', ns]));
  for (const cmd of [
    ['link', 'set', 'lo', 'up'],
    ['link', 'add', 'eth0', 'address', MAC, 'type', 'veth', 'peer', 'name', 'peer0'],
    ['addr', 'add', '10.0.0.5/24', 'dev', 'eth0'],
    ['addr', 'add', '2001:db8::5/64', 'dev', 'eth0', 'nodad'],
    ['link', 'set', 'eth0', 'up'],
    ['link', 'set', 'peer0', 'up'],
    ['route', 'add', 'default', 'via', '10.0.0.1'],
    ['-6', 'route', 'add', 'default', 'via', '2001:db8::1', 'dev', 'eth0'],
  ])
    sh(['ip', '-n', ns, ...cmd]);
  return ns;
}

/** SCRIPT run in NS under a UTS namespace whose host name is vmw-test (and a mount namespace of its own). */
function inNamespace(ns: string, script: string, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(
    'ip',
    ['netns', 'exec', ns, 'unshare', '--uts', '--mount', '--fork', 'sh', '-c', `hostname vmw-test && ${script}`],
    { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 },
  );
  assert.equal(r.status, 0, `${script}: ${r.stderr}`);
  return r.stdout;
}

const self = () => `${JSON.stringify(process.execPath)} ${JSON.stringify(process.argv[1] as string)}`;

function registerTests(): void {
  test('IPv6 netmasks as netifaces writes them (the compressed mask, then the prefix)', () => {
    assert.equal(ipv6Netmask(64), 'ffff:ffff:ffff:ffff::/64');
    assert.equal(ipv6Netmask(56), 'ffff:ffff:ffff:ff00::/56');
    assert.equal(ipv6Netmask(128), 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128');
    assert.equal(ipv6Netmask(112), 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:0/112');
    assert.equal(ipv6Netmask(0), '::/0');
  });

  test("the host info merges under the metadata as mergemanydict does: the metadata's own values win, mappings merge", () => {
    const md = { 'local-hostname': 'from-md', network: { version: 2, ethernets: {} }, list: [1] };
    const merged = mergeMissing(md, {
      'local-hostname': 'host',
      'local-ipv4': '10.0.0.5',
      network: { interfaces: { 'by-mac': {} } },
      list: [2],
    });
    assert.deepEqual(merged, {
      'local-hostname': 'from-md',
      network: { version: 2, ethernets: {}, interfaces: { 'by-mac': {} } },
      list: [1],
      'local-ipv4': '10.0.0.5',
    });
  });

  test("the host info is what cloud-init 22.4's get_host_info reads in the same namespace", {
    timeout: 120_000,
  }, (t) => {
    if (
      !need(
        t,
        isRoot() && hasCommand('ip') && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
        'needs root, iproute2, unshare, chroot and the Debian cloud-init rootfs',
      )
    )
      return;
    const rootfs = ensureDebianRootfs();
    const ns = namespace(t);
    const python =
      'import json; from cloudinit.sources.DataSourceVMware import get_host_info; print(json.dumps(get_host_info()))';
    const theirs = JSON.parse(
      inNamespace(
        ns,
        `PYTHONDONTWRITEBYTECODE=1 chroot ${JSON.stringify(rootfs)} python3 -c ${JSON.stringify(python)}`,
      ),
    ) as Record<string, unknown>;
    const ours = JSON.parse(inNamespace(ns, `exec ${self()}`, { [ROLE]: 'host-info' })) as Record<string, unknown>;
    assert.deepEqual(ours, theirs);
    // The case it shows: eth0 holds one IPv4 (local-ipv4) but two IPv6 (its link-local one counts), so no local-ipv6.
    assert.equal(ours['local-ipv4'], '10.0.0.5');
    assert.equal(ours['local-ipv6'], undefined);
  });

  test('setup publishes local-ipv4 with `info-set guestinfo.local-ipv4` through the rpctool and merges the host info under the metadata', {
    timeout: 120_000,
  }, (t) => {
    if (!need(t, isRoot() && hasCommand('ip') && hasCommand('unshare'), 'needs root, iproute2 and unshare')) return;
    const ns = namespace(t);
    const dir = tempDir(t);
    const calls = join(dir, 'rpctool-calls');
    // The fake vmware-rpctool records each RPC; a tmpfs over /usr/local/bin in the stage's own mount namespace holds
    // it.
    writeFileSync(join(dir, 'vmware-rpctool'), `#!/bin/sh\nprintf '%s\\n' "$1" >> ${JSON.stringify(calls)}\n`, {
      mode: 0o755,
    });
    const md = { 'instance-id': 'vm-1', 'local-hostname': 'from-metadata', 'wait-on-network': { ipv4: true } };
    const out = JSON.parse(
      inNamespace(
        ns,
        `mount -t tmpfs tmpfs /usr/local/bin && cp ${JSON.stringify(join(dir, 'vmware-rpctool'))} /usr/local/bin/ && exec ${self()}`,
        { [ROLE]: 'setup', KILN_TEST_VMWARE_MD: JSON.stringify(md), PATH: `/usr/local/bin:${process.env.PATH ?? ''}` },
      ),
    ) as InstanceData;
    assert.ok(existsSync(calls), 'the rpctool was never called');
    assert.deepEqual(readFileSync(calls, 'utf8').trim().split('\n'), ['info-set guestinfo.local-ipv4 10.0.0.5']);
    assert.equal(out.metadata['local-ipv4'], '10.0.0.5');
    assert.equal(out.metadata['local-hostname'], 'from-metadata', "the metadata's own host name wins over the host's");
    assert.equal(out.metadata.hostname, 'vmw-test');
    const ifaces = (out.metadata.network as { interfaces: Record<string, Record<string, unknown>> }).interfaces;
    assert.deepEqual(ifaces['by-ipv4']?.['10.0.0.5'], { netmask: '255.255.255.0', broadcast: '10.0.0.5', mac: MAC });
    assert.deepEqual(ifaces['by-ipv6']?.['2001:db8::5'], { netmask: 'ffff:ffff:ffff:ffff::/64', mac: MAC });
  });
}
