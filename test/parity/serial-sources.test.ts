// Parity: Debian 13's cloud-init 25.1 (pyserial on a pty bound over /dev/ttyS1 in its sandbox) and kiln's SmartOS and
// CloudSigma sources read the same fake host: instance data, user and vendor data, the files SmartOS writes, the
// rendered ENI.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { rendererConfigFor } from '../../src/net/distro-renderer-configs';
import { parseNetworkInput } from '../../src/net/parse-network-config';
import { RENDERERS } from '../../src/net/renderers';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { shortLocalHostname } from '../../src/runner/instance-data';
import { cloudSigmaSource } from '../../src/sources/cloudsigma';
import type { CrawlContext, Datasource, InstanceData } from '../../src/sources/datasource';
import { startCloudSigmaHost, startSmartOsHost } from '../helpers/serial-hosts';
import { smartOsSource } from '../../src/sources/smartos/smartos';
import { Logger } from '../../src/util/log';
import { copyRootfs } from '../helpers/debian-rootfs';
import { testKoffi } from '../helpers/koffi';
import { openPtyPair, ptySkipReason } from '../helpers/pty-pair';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from '../sources/fake-finder';
import { PARITY_SUITE } from './run-case';
import { notAContainer } from './sandbox-stages';

const IID = '7b3c1a9e-5d2f-4e8a-9c1b-3f4e5d6a7b8c';
const SMARTOS_KEYS: Record<string, string> = {
  'sdc:uuid': IID,
  hostname: 'smartos-vm',
  'sdc:hostname': 'smartos-vm.example',
  root_authorized_keys: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHNtYXJ0b3MtcGFyaXR5 root@smartos\n',
  'user-script': '#!/bin/sh\necho user-script ran\n',
  'user-data': 'legacy mdata user data\n',
  'cloud-init:user-data': Buffer.from('#cloud-config\nfinal_message: from base64\n').toString('base64'),
  base64_keys: 'cloud-init:user-data',
  'sdc:datacenter_name': 'us-west-1',
  'sdc:operator-script': '#!/bin/sh\necho operator\n',
  'sdc:dns_domain': 'example',
  // No MAC: cloud-init 25.1 (as 22.4) stops init-local when a MAC in the network config is not on the machine.
  'sdc:nics': JSON.stringify([
    { interface: 'net0', gateways: ['192.0.2.1'], ips: ['192.0.2.26/24'], mtu: 1500, primary: true },
  ]),
  'sdc:resolvers': JSON.stringify(['192.0.2.53']),
  'sdc:routes': JSON.stringify([{ linklocal: false, dst: '198.51.100.0/24', gateway: '192.0.2.3' }]),
};
const SERVER_CONTEXT = {
  cpu: 1000,
  meta: {
    ssh_public_key: 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC1 sigma@example',
    'cloudinit-user-data': '#cloud-config\nfinal_message: sigma\n',
  },
  name: 'sigma_server',
  uuid: '65b2fb23-8c03-4187-a3ba-8b7c919e8890',
  vnc_password: '9e84d6cb49e46379',
  vendor_data: { location: 'zrh', cloudinit: '#cloud-config\nruncmd: [true]\n' },
};

interface Case {
  name: string;
  source: Datasource;
  dmi: Record<string, string>;
  /** Starts the fake host on SOCKET; returns its stop. */
  host(dir: string, socket: string): Promise<() => Promise<void>>;
  /** Files the crawl writes, compared after each side's run. */
  files: string[];
}

const CASES: Case[] = [
  {
    name: 'SmartOS KVM guest: protocol V2 on /dev/ttyS1, base64_keys, scripts and mdata-user-data, sdc:nics network',
    source: smartOsSource,
    dmi: { product_name: 'SmartDC HVM', sys_vendor: 'Joyent' },
    async host(dir, socket) {
      mkdirSync(join(dir, 'keys'), { recursive: true });
      for (const [k, v] of Object.entries(SMARTOS_KEYS)) writeFileSync(join(dir, 'keys', k), v);
      const h = await startSmartOsHost({ dir: join(dir, 'keys'), socketPath: socket });
      return h.close;
    },
    files: [
      `var/lib/cloud/instances/${IID}/data/user-script`,
      `var/lib/cloud/instances/${IID}/data/operator-script`,
      'var/db/mdata-user-data',
      'var/db/user-script',
    ],
  },
  {
    name: 'CloudSigma: the server context over /dev/ttyS1',
    source: cloudSigmaSource,
    dmi: { product_name: 'CloudSigma', sys_vendor: 'CloudSigma' },
    async host(dir, socket) {
      writeFileSync(join(dir, 'context.json'), JSON.stringify(SERVER_CONTEXT));
      const h = await startCloudSigmaHost({ contextFile: join(dir, 'context.json'), socketPath: socket });
      return h.close;
    },
    files: [],
  },
];

const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('utf8'));
const readIf = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined);
/** A file's text, or a link's target, or undefined. */
function fileState(root: string, rel: string): string | undefined {
  const p = join(root, rel);
  try {
    return lstatSync(p).isSymbolicLink() ? `-> ${readlinkSync(p)}` : readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

function prepare(root: string, c: Case): void {
  for (const p of [
    'var/lib/cloud',
    'run/cloud-init',
    'var/db',
    'etc/network/interfaces.d/50-cloud-init',
    'var/log/cloud-init.log',
    'dev/ttyS1',
    'sys',
  ])
    rmSync(join(root, p), { recursive: true, force: true });
  mkdirSync(join(root, 'sys/class/dmi/id'), { recursive: true });
  for (const [k, v] of Object.entries(c.dmi)) writeFileSync(join(root, 'sys/class/dmi/id', k), `${v}\n`);
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90-kiln-parity.cfg'), `datasource_list: [${c.source.name}, None]\n`);
}

/**
 * One cloud-init stage in new namespaces, chrooted, with the pty SLAVE bind-mounted over /dev/ttyS1 inside them.
 * Asynchronous: the fake host answers from this process while cloud-init runs.
 */
function cloudInitStage(root: string, slave: string, args: string[]): Promise<{ code: number; stderr: string }> {
  const q = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  writeFileSync(join(root, 'dev/ttyS1'), '');
  const script = `set -e\nmount --bind ${q(slave)} ${q(join(root, 'dev/ttyS1'))}\nexec chroot ${q(root)} /bin/sh -c 'mount -t proc proc /proc && exec /usr/bin/cloud-init ${args.join(' ')}'`;
  return new Promise((resolve, reject) => {
    const child = spawn(
      'unshare',
      ['--uts', '--ipc', '--mount', '--pid', '--net', '--fork', '--kill-child', '/bin/sh', '-c', script],
      {
        env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stderr });
    });
  });
}

test('kiln reads SmartOS and CloudSigma serial hosts as cloud-init 25.1 does', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the Debian cloud-init rootfs',
    )
  )
    return;
  const skip = ptySkipReason();
  if (!need(t, skip === undefined, skip ?? '')) return;
  const root = copyRootfs(tempDir(t, 'kiln-serial-parity-'), { suite: PARITY_SUITE });
  // The guest these sources serve is a KVM VM: trixie's systemd-detect-virt would call the sandbox a container, and
  // 25.1 then reads no DMI (sandbox-stages.ts).
  notAContainer(root);
  const log = new Logger().for('test');
  for (const c of CASES) {
    await t.test(c.name, async (tt) => {
      const dir = tempDir(tt);
      const socket = join(dir, 'host.sock');
      const stop = await c.host(dir, socket);
      tt.after(stop);
      const pty = await openPtyPair(socket);
      tt.after(() => pty.close());

      prepare(root, c);
      const local = await cloudInitStage(root, pty.slave, ['init', '--local']);
      assert.equal(
        local.code,
        0,
        `cloud-init init --local failed: ${local.stderr}\n${readIf(join(root, 'var/log/cloud-init.log'))?.slice(-6000)}`,
      );
      const docPath = join(root, 'run/cloud-init/instance-data-sensitive.json');
      assert.ok(
        existsSync(docPath),
        `cloud-init found no datasource:\n${readIf(join(root, 'var/log/cloud-init.log'))?.slice(-4000)}`,
      );
      const theirs = JSON.parse(readFileSync(docPath, 'utf8')) as {
        v1: Record<string, unknown>;
        ds: { meta_data: Record<string, unknown> };
      };
      assert.equal(
        theirs.v1.platform,
        c.source === smartOsSource ? 'joyent' : 'cloudsigma',
        `cloud-init used ${String(theirs.v1.platform)}`,
      );
      const theirEni = readIf(join(root, 'etc/network/interfaces.d/50-cloud-init'));
      const theirFiles = Object.fromEntries(c.files.map((f) => [f, fileState(root, f)]));
      const init = await cloudInitStage(root, pty.slave, ['init']);
      assert.equal(init.code, 0, `cloud-init init failed: ${init.stderr}`);
      const instanceDir = join(root, 'var/lib/cloud/instances', String(theirs.v1.instance_id));
      const theirUserData = readIf(join(instanceDir, 'user-data.txt'));
      const theirVendorData = readIf(join(instanceDir, 'vendor-data.txt'));

      prepare(root, c);
      mkdirSync(join(root, 'dev'), { recursive: true });
      symlinkSync(pty.slave, join(root, 'dev/ttyS1'));
      const platform = new LinuxPlatform({ root, log, loadKoffi: testKoffi });
      const ctx: CrawlContext = {
        platform,
        log,
        kernelCmdline: '',
        dmi: c.dmi,
        config: {},
        finder: new FakeFinder(platform, []),
        settings: { serial_timeout: 10 },
      };
      assert.equal(await c.source.detect(ctx), true, 'kiln detects it');
      const data: InstanceData = await c.source.crawl(ctx);

      assert.equal(data.instanceId, theirs.v1.instance_id, 'instance_id');
      assert.equal(shortLocalHostname(data.localHostname) ?? null, theirs.v1.local_hostname, 'local_hostname');
      assert.deepEqual(data.publicKeys, theirs.v1.public_ssh_keys, 'public_ssh_keys');
      assert.equal(data.cloudName, theirs.v1.cloud_name, 'cloud_name');
      assert.equal(data.platform, theirs.v1.platform, 'platform');
      assert.equal(data.subplatform, theirs.v1.subplatform, 'subplatform');
      assert.equal(data.availabilityZone ?? null, theirs.v1.availability_zone ?? null, 'availability_zone');
      assert.deepEqual(data.metadata, theirs.ds.meta_data, 'ds.meta_data');
      assert.equal(text(data.userData) ?? '', theirUserData ?? '', 'user-data.txt');
      assert.equal(text(data.vendorData) ?? '', theirVendorData ?? '', 'vendor-data.txt');
      assert.deepEqual(
        Object.fromEntries(c.files.map((f) => [f, fileState(root, f)])),
        theirFiles,
        'the files the crawl writes',
      );
      if (data.networkConfig) {
        const ns = parseNetworkInput('v1', { network: data.networkConfig.config }, {});
        const eni = RENDERERS.eni
          .render(ns, rendererConfigFor('debian', 'eni'))
          .find((f) => f.path === '/etc/network/interfaces.d/50-cloud-init');
        assert.equal(eni?.content, theirEni, 'the rendered ENI');
      } else assert.equal(theirEni, undefined, 'no network config on either side');
    });
  }
});
