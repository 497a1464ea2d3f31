// The LXD source against the devlxd mock on a unix socket inside a sandbox root: keys and their precedence, network,
// faults.
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { buildInstanceData, redactInstanceData } from '../../src/runner/instance-data';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { Platform, RunOpts, RunResult } from '../../src/platform/platform';
import type { CrawlContext, DetectContext } from '../../src/sources/datasource';
import { defaultLxdNicName } from '../../src/sources/lxd/fallback-network';
import { lxdSource } from '../../src/sources/lxd/lxd';
import { datasourceByName } from '../../src/sources/registry';
import { SourceError } from '../../src/sources/source-error';
import {
  startMetadataServer,
  type Misbehaviour,
  type RunningMetadataServer,
} from '../../src/metadata-server/metadata-server';
import { Logger, MemorySink } from '../../src/util/log';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';
import { hostUname } from '../../src/platform/host-uname';

const TREES = join(FIXTURES, 'sources/lxd');
const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('utf8'));

interface Sandbox {
  root: string;
  platform: Platform;
  sink: MemorySink;
  ctx: DetectContext;
}

/** A sandbox root (short path: a unix socket path has at most 107 bytes) with its platform and a detect context. */
function sandbox(
  t: TestContext,
  opts: { dmi?: Record<string, string>; virt?: string; config?: Record<string, unknown> } = {},
): Sandbox {
  const root = tempDir(t, 'klxd-');
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const log = logger.for('test');
  const linux = new LinuxPlatform({ root, log });
  // systemd-detect-virt is the distro's: the test answers for it and records that it was asked.
  const platform: Platform =
    opts.virt === undefined
      ? linux
      : new Proxy(linux, {
          get(target, prop, receiver) {
            if (prop !== 'run') return Reflect.get(target, prop, receiver) as unknown;
            return async (cmd: string[] | string, _o?: RunOpts): Promise<RunResult> => {
              assert.deepEqual(cmd, ['systemd-detect-virt']);
              sink.lines.push('ran systemd-detect-virt\n');
              return opts.virt === 'none'
                ? { code: 1, stdout: 'none\n', stderr: '' }
                : { code: 0, stdout: `${opts.virt}\n`, stderr: '' };
            };
          },
        });
  const ctx: DetectContext = {
    platform,
    log,
    kernelCmdline: '',
    dmi: opts.dmi ?? {},
    config: opts.config ?? {},
    finder: new FakeFinder(linux),
  };
  return { root, platform, sink, ctx };
}

async function serveLxd(
  t: TestContext,
  sb: Sandbox,
  tree: string,
  misbehave: Misbehaviour[] = [],
): Promise<RunningMetadataServer> {
  mkdirSync(join(sb.root, 'dev/lxd'), { recursive: true });
  const server = await startMetadataServer({
    kind: 'lxd',
    dir: join(TREES, tree),
    socketPath: join(sb.root, 'dev/lxd/sock'),
    misbehave,
  });
  t.after(() => server.close());
  return server;
}

function crawlCtx(sb: Sandbox, settings: Record<string, unknown> = {}, signalMs = 15_000): CrawlContext {
  return { ...sb.ctx, settings, stage: 'local', signal: AbortSignal.timeout(signalMs) };
}

async function crawlError(sb: Sandbox, settings: Record<string, unknown>, maxMs: number): Promise<SourceError> {
  const started = performance.now();
  const err = await lxdSource.crawl(crawlCtx(sb, settings)).then(
    (d) => assert.fail(`expected an error, got instance ${d.instanceId}`),
    (e: unknown) => e,
  );
  const ms = performance.now() - started;
  assert.ok(ms < maxMs, `the crawl took ${Math.round(ms)} ms, over ${maxMs} ms`);
  assert.ok(err instanceof SourceError, `expected a SourceError, got ${String(err)}`);
  assert.match(err.message, /^LXD: /);
  return err;
}

test('registry: LXD sits after ConfigDrive as in cloud-init, a local source', () => {
  assert.equal(datasourceByName('lxd'), lxdSource);
  assert.equal(lxdSource.kind, 'local');
});

test('cloud-init.* keys: user data, vendor data, v2 network config, raw crawl as ds, sensitive keys redacted', async (t) => {
  const sb = sandbox(t);
  const server = await serveLxd(t, sb, 'cloud-init-keys');
  assert.equal(await lxdSource.detect(sb.ctx), true);
  const data = await lxdSource.crawl(crawlCtx(sb));
  assert.equal(data.instanceId, '5a4b1c2d-lxd-c1');
  assert.equal(data.localHostname, 'c1');
  assert.equal(data.cloudName, 'lxd');
  assert.equal(data.platform, 'lxd');
  assert.equal(data.subplatform, 'LXD socket API v. 1.0 (/dev/lxd/sock)');
  assert.equal(text(data.userData), '#cloud-config\nruncmd:\n  - echo from cloud-init.user-data\n');
  assert.equal(text(data.vendorData), '#cloud-config\npackages: [htop]\n');
  assert.deepEqual(data.networkConfig, {
    format: 'v2',
    config: { version: 2, ethernets: { eth0: { dhcp4: true, dhcp6: true } } },
  });
  assert.deepEqual(data.metadata, { 'instance-id': '5a4b1c2d-lxd-c1', 'local-hostname': 'c1' });
  const ds = data.crawledMetadata as Record<string, unknown>;
  assert.equal(ds._metadata_api_version, '1.0');
  assert.equal(ds['meta-data'], '#cloud-config\ninstance-id: 5a4b1c2d-lxd-c1\nlocal-hostname: c1\n');
  assert.equal((ds.config as Record<string, string>)['user.favourite-colour'], 'blue');
  assert.equal(typeof ds['network-config'], 'string');
  assert.ok(!('user-data' in ds) && !('vendor-data' in ds), 'user data and vendor data stay out of ds, as cloud-init');
  assert.equal((ds.devices as Record<string, { type: string }>).eth0?.type, 'nic');
  // Every request went over the socket, each route once (no retries needed).
  assert.deepEqual(
    server.requests.map((r) => r.path),
    [
      '/1.0/meta-data',
      '/1.0/config',
      '/1.0/config/cloud-init.network-config',
      '/1.0/config/cloud-init.user-data',
      '/1.0/config/cloud-init.vendor-data',
      '/1.0/config/user.favourite-colour',
      '/1.0/devices',
    ],
  );
  // instance-data.json: ds is the crawl (no meta_data), v1 says lxd, user data in config is root-only.
  const full = buildInstanceData({
    kernel: hostUname(),
    instance: data,
    distro: { name: 'debian', family: 'debian', version: '12' },
    mergedConfig: {},
    systemConfig: {},
  });
  const v1 = full.v1 as Record<string, unknown>;
  assert.equal(v1.cloud_name, 'lxd');
  assert.equal(v1.platform, 'lxd');
  assert.equal(v1.cloud_id, 'lxd');
  assert.equal(v1.instance_id, '5a4b1c2d-lxd-c1');
  const fullDs = full.ds as Record<string, unknown>;
  assert.ok(!('meta_data' in fullDs));
  assert.match(String(fullDs._doc), /^EXPERIMENTAL/);
  assert.deepEqual((full.sensitive_keys as string[]).filter((k) => k.startsWith('ds/')).sort(), [
    'ds/config/cloud-init.user-data',
    'ds/config/cloud-init.vendor-data',
  ]);
  const redacted = redactInstanceData(full).ds as { config: Record<string, string> };
  assert.equal(redacted.config['cloud-init.user-data'], 'redacted for non-root user');
  assert.equal(redacted.config['user.favourite-colour'], 'blue');
});

test('legacy user.* keys are used on an LXD without cloud-init.* ones; user.meta-data is merged over meta-data', async (t) => {
  const sb = sandbox(t);
  await serveLxd(t, sb, 'legacy-user-keys');
  const data = await lxdSource.crawl(crawlCtx(sb));
  assert.equal(data.instanceId, 'legacy-c2');
  assert.equal(data.localHostname, 'c2-from-user-meta');
  assert.deepEqual(data.publicKeys, [
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKiln0lxd0legacy0key0only0for0tests0000000 test@kiln',
  ]);
  assert.equal(text(data.userData), '#cloud-config\nruncmd:\n  - echo from user.user-data\n');
  assert.equal(text(data.vendorData), '#cloud-config\nbootcmd:\n  - echo from user.vendor-data\n');
  assert.equal(data.networkConfig?.format, 'v1');
  assert.ok(data.networkConfig, 'a network config');
  assert.deepEqual((data.networkConfig.config as { config: unknown[] }).config[0], {
    type: 'physical',
    name: 'eth0',
    subnets: [{ type: 'static', address: '10.0.3.10/24', gateway: '10.0.3.1' }],
  });
  assert.ok(!(data.crawledMetadata as Record<string, unknown>).devices, 'no /1.0/devices (404): skipped, not fatal');
  const full = buildInstanceData({
    kernel: hostUname(),
    instance: data,
    distro: { name: 'debian', family: 'debian', version: '12' },
    mergedConfig: {},
    systemConfig: {},
  });
  assert.deepEqual((full.sensitive_keys as string[]).filter((k) => k.startsWith('ds/')).sort(), [
    'ds/config/user.meta-data',
    'ds/config/user.user-data',
    'ds/config/user.vendor-data',
  ]);
});

test("cloud-init.* keys win over user.* ones, with cloud-init's warning; network-config under `network:` is unwrapped", async (t) => {
  const sb = sandbox(t);
  await serveLxd(t, sb, 'both-keys');
  const data = await lxdSource.crawl(crawlCtx(sb));
  assert.equal(text(data.userData), '#cloud-config\nruncmd: [echo new]\n');
  assert.deepEqual(data.networkConfig, {
    format: 'v2',
    config: { version: 2, ethernets: { enp5s0: { dhcp4: true } } },
  });
  const config = (data.crawledMetadata as { config: Record<string, string> }).config;
  assert.equal(
    config['user.user-data'],
    '#cloud-config\nruncmd: [echo old]\n',
    'the overridden key stays in ds.config',
  );
  const logged = sb.sink.lines.join('');
  assert.match(logged, /WARNING.*Ignoring LXD config user\.user-data in favor of cloud-init\.user-data value\./);
  assert.match(
    logged,
    /WARNING.*Ignoring LXD config user\.network-config in favor of cloud-init\.network-config value\./,
  );
});

test('no network-config: v1 DHCP on the connected NIC in /sys/class/net, else eth0 (systemd-detect-virt unavailable)', async (t) => {
  const sb = sandbox(t);
  await serveLxd(t, sb, 'no-network-config');
  const data = await lxdSource.crawl(crawlCtx(sb));
  assert.deepEqual(data.networkConfig, {
    format: 'v1',
    config: { version: 1, config: [{ type: 'physical', name: 'eth0', subnets: [{ type: 'dhcp', control: 'auto' }] }] },
  });
  const nic = join(sb.root, 'sys/class/net/ens7');
  mkdirSync(nic, { recursive: true });
  writeFileSync(join(nic, 'address'), '00:16:3e:12:34:56\n');
  writeFileSync(join(nic, 'carrier'), '1\n');
  const again = await lxdSource.crawl(crawlCtx(sb));
  assert.ok(again.networkConfig, 'a network config');
  assert.equal(
    ((again.networkConfig.config as { config: Array<{ name: string }> }).config[0] as { name: string }).name,
    'ens7',
  );
});

test('no NIC seen: the name LXD gives by instance type and machine, as cloud-init', async (t) => {
  assert.equal(defaultLxdNicName(undefined, 'x86_64'), 'eth0');
  assert.equal(defaultLxdNicName('lxc', 'x86_64'), 'eth0');
  assert.equal(defaultLxdNicName('kvm', 'x86_64'), 'enp5s0');
  assert.equal(defaultLxdNicName('qemu', 'aarch64'), 'enp5s0');
  assert.equal(defaultLxdNicName('kvm', 'ppc64le'), 'enp0s5');
  assert.equal(defaultLxdNicName('kvm', 's390x'), 'enc9');
  const sb = sandbox(t, { virt: 'kvm' });
  await serveLxd(t, sb, 'no-network-config');
  const data = await lxdSource.crawl(crawlCtx(sb));
  assert.ok(data.networkConfig, 'a network config');
  const name = ((data.networkConfig.config as { config: Array<{ name: string }> }).config[0] as { name: string }).name;
  assert.ok(['enp5s0', 'enp0s5', 'enc9'].includes(name), `a VM's NIC name, not ${name}`);
});

test('detection: a socket at /dev/lxd/sock, not a file or a link to one; DMI board_name LXD only in a VM', async (t) => {
  const plain = sandbox(t);
  assert.equal(await lxdSource.detect(plain.ctx), false, 'nothing there');
  mkdirSync(join(plain.root, 'dev/lxd'), { recursive: true });
  writeFileSync(join(plain.root, 'dev/lxd/sock'), '');
  assert.equal(await lxdSource.detect(plain.ctx), false, 'a regular file is not the socket');

  const linked = sandbox(t);
  await serveLxd(t, linked, 'no-network-config');
  mkdirSync(join(linked.root, 'run'), { recursive: true });
  symlinkSync('/dev/lxd/sock', join(linked.root, 'run/sock-link'));
  assert.equal(
    await lxdSource.detect({ ...linked.ctx, config: { datasource: { LXD: { socket_path: '/run/sock-link' } } } }),
    false,
    'a link to the socket is not it (lstat)',
  );
  assert.equal(await lxdSource.detect(linked.ctx), true);

  const vm = sandbox(t, { dmi: { board_name: 'LXD', product_name: 'LXD', sys_vendor: 'Canonical Ltd.' }, virt: 'kvm' });
  assert.equal(await lxdSource.detect(vm.ctx), true, 'an LXD VM before lxd-agent made the socket');
  const qemu = sandbox(t, { dmi: { board_name: 'LXD' }, virt: 'qemu' });
  assert.equal(await lxdSource.detect(qemu.ctx), true);
  const container = sandbox(t, { dmi: { board_name: 'LXD' }, virt: 'docker' });
  assert.equal(
    await lxdSource.detect(container.ctx),
    false,
    'a container on an LXD VM sees its DMI, but is not LXD without a socket',
  );
  const other = sandbox(t, { dmi: { board_name: 'Standard PC', sys_vendor: 'QEMU' }, virt: 'kvm' });
  assert.equal(await lxdSource.detect(other.ctx), false);
  assert.ok(
    !other.sink.lines.join('').includes('ran systemd-detect-virt'),
    'no command runs on a machine that is not LXD',
  );

  const port = sandbox(t, { virt: 'kvm' });
  mkdirSync(join(port.root, 'sys/class/virtio-ports/vport1p1'), { recursive: true });
  writeFileSync(join(port.root, 'sys/class/virtio-ports/vport1p1/name'), 'org.linuxcontainers.lxd\n');
  assert.equal(await lxdSource.detect(port.ctx), true, "LXD's agent port, for VMs without the DMI name");
});

test('HTTP 500 twice on meta-data, then an answer: retried as newer cloud-init does', async (t) => {
  const sb = sandbox(t);
  const server = await serveLxd(t, sb, 'cloud-init-keys', [
    { kind: 'status', value: 500, times: 2, path: '/1.0/meta-data' },
  ]);
  const data = await lxdSource.crawl(crawlCtx(sb));
  assert.equal(data.instanceId, '5a4b1c2d-lxd-c1');
  assert.equal(server.requests.filter((r) => r.path === '/1.0/meta-data').length, 3);
  assert.match(sb.sink.lines.join(''), /\[GET\] \[HTTP:500\] http:\/\/lxd\/1\.0\/meta-data, retrying/);
});

test('HTTP 500 that never ends: an error naming the route after the retries, quickly', async (t) => {
  const sb = sandbox(t);
  await serveLxd(t, sb, 'cloud-init-keys', [{ kind: 'status', value: 500, path: '/1.0/meta-data' }]);
  const err = await crawlError(sb, { retries: 3 }, 3000);
  assert.match(err.message, /invalid HTTP response \[500\] from http:\/\/lxd\/1\.0\/meta-data/);
});

test('a config key that fails is skipped, as cloud-init skips it', async (t) => {
  const sb = sandbox(t);
  await serveLxd(t, sb, 'cloud-init-keys', [{ kind: 'status', value: 403, path: '/1.0/config/cloud-init.user-data' }]);
  const data = await lxdSource.crawl(crawlCtx(sb));
  assert.equal(data.userData, undefined);
  assert.equal(text(data.vendorData), '#cloud-config\npackages: [htop]\n');
});

test('a slow socket: the crawl ends at max_wait, not when LXD answers', async (t) => {
  const sb = sandbox(t);
  await serveLxd(t, sb, 'cloud-init-keys', [{ kind: 'delay', value: 60_000, path: '/1.0/config' }]);
  const err = await crawlError(sb, { timeout: 5, max_wait: 1 }, 2500);
  assert.match(err.message, /within max_wait 1 s/);
});

test('a request past its timeout fails the crawl within the timeout', async (t) => {
  const sb = sandbox(t);
  await serveLxd(t, sb, 'cloud-init-keys', [{ kind: 'delay', value: 60_000, path: '/1.0/meta-data' }]);
  const err = await crawlError(sb, { timeout: 0.5, max_wait: 10 }, 2000);
  assert.match(err.message, /no answer in time/);
});

test('a truncated body and a dropped connection are errors, not partial data', async (t) => {
  const sb = sandbox(t);
  await serveLxd(t, sb, 'cloud-init-keys', [{ kind: 'truncate', path: '/1.0/config/cloud-init.user-data' }]);
  const err = await crawlError(sb, { timeout: 2 }, 3000);
  assert.match(err.message, /cloud-init\.user-data/);
  const sb2 = sandbox(t);
  await serveLxd(t, sb2, 'cloud-init-keys', [{ kind: 'drop', path: '/1.0/devices' }]);
  const err2 = await crawlError(sb2, { timeout: 2 }, 3000);
  assert.match(err2.message, /\/1\.0\/devices/);
});

test('no socket, a socket nobody listens on, a listener that never answers: each an error within bounds', async (t) => {
  const missing = sandbox(t);
  const err = await crawlError(missing, {}, 500);
  assert.match(err.message, /\/dev\/lxd\/sock does not exist/);

  // A socket file left behind by a listener that is gone: the connection is refused at once.
  const stale = sandbox(t);
  mkdirSync(join(stale.root, 'dev/lxd'), { recursive: true });
  const gone = createServer();
  await new Promise<void>((r) => gone.listen(join(stale.root, 'dev/lxd/agent.sock'), r));
  // A hard link outlives close(), which unlinks the path it listened on: a socket file with nobody behind it.
  linkSync(join(stale.root, 'dev/lxd/agent.sock'), join(stale.root, 'dev/lxd/sock'));
  await new Promise<void>((r) => gone.close(() => r()));
  const refused = await crawlError(stale, { timeout: 2 }, 1500);
  assert.match(refused.message, /network|ECONNREFUSED|refused/i);

  // Accepts, reads, never answers.
  const mute = sandbox(t);
  mkdirSync(join(mute.root, 'dev/lxd'), { recursive: true });
  const sockets = new Set<Socket>();
  const silent = createServer((s) => void sockets.add(s));
  await new Promise<void>((r) => silent.listen(join(mute.root, 'dev/lxd/sock'), r));
  t.after(() => {
    for (const s of sockets) s.destroy();
    silent.close();
  });
  const err3 = await crawlError(mute, { timeout: 0.5, max_wait: 5 }, 2000);
  assert.match(err3.message, /no answer in time/);
});

test('bad answers: config listing not JSON, meta-data not a mapping, network-config without a version', async (t) => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['listing', { 'meta-data': 'instance-id: x\n' }, /expected JSON/],
    ['meta', { 'meta-data': '- a list\n' }, /invalid meta-data: expected a mapping/],
    [
      'netcfg',
      { 'meta-data': 'instance-id: x\n', 'config/cloud-init.network-config': 'ethernets: {}\n' },
      /'version' must be 1 or 2/,
    ],
  ];
  for (const [name, files, want] of cases) {
    const dir = tempDir(t, `klxd-${name}-`);
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), content);
    }
    const sb = sandbox(t);
    mkdirSync(join(sb.root, 'dev/lxd'), { recursive: true });
    const server = await startMetadataServer({ kind: 'lxd', dir, socketPath: join(sb.root, 'dev/lxd/sock') });
    t.after(() => server.close());
    if (name === 'listing') {
      // Replace the listing with HTML, as a proxy or a broken agent might answer.
      await server.close();
      const bad = createServer((s) =>
        s.end('HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 6\r\nconnection: close\r\n\r\n<html>'),
      );
      await new Promise<void>((r) => bad.listen(join(sb.root, 'dev/lxd/sock'), r));
      t.after(() => bad.close());
    }
    const err = await crawlError(sb, { timeout: 2 }, 3000);
    assert.match(err.message, want, name);
  }
});

test('datasource.LXD.socket_path must be absolute', async (t) => {
  const sb = sandbox(t);
  await assert.rejects(
    lxdSource.crawl(crawlCtx(sb, { socket_path: 'dev/lxd/sock' })),
    /socket_path must be an absolute path/,
  );
});

test('devel serve-metadata --kind lxd needs --socket, and --socket is for the socket kinds only', async () => {
  const { parseInvocation } = await import('../../src/cli/parse-args');
  const { COMMANDS } = await import('../../src/cli/registry');
  const { UsageError } = await import('../../src/util/errors');
  const { buildFacts } = await import('../../src/build-info');
  for (const [argv, want] of [
    [['--kind', 'lxd', '--dir', '/tmp'], /--kind lxd needs --socket PATH/],
    [
      ['--kind', 'ec2', '--dir', '/tmp', '--socket', '/tmp/s'],
      /--socket is for --kind lxd, cloudsigma or smartos only/,
    ],
  ] as Array<[string[], RegExp]>) {
    const inv = parseInvocation(['devel', 'serve-metadata', ...argv], COMMANDS, 'kiln');
    assert.ok(inv.command);
    const logger = new Logger();
    const ctx = {
      face: 'kiln',
      facts: buildFacts,
      root: '/',
      dryRun: false,
      debug: false,
      logger,
      log: logger.for('test'),
      io: { out: () => undefined, err: () => undefined },
      env: {},
      platform: () => assert.fail('not used'),
    };
    await assert.rejects(
      inv.command.run(ctx as never, inv.args),
      (err: unknown) => err instanceof UsageError && want.test(err.message),
    );
  }
});
