// VMware guestinfo: the tools' exact command lines (fake platform), and real runs of a fake vmware-rpctool/vmtoolsd in
// a chroot sandbox.
import assert from 'node:assert/strict';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { DryRunPlatform } from '../../src/platform/dry-run-platform';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { Platform, RunOpts, RunResult } from '../../src/platform/platform';
import type { CrawlContext, DetectContext } from '../../src/sources/datasource';
import { SourceError } from '../../src/sources/source-error';
import { datasourceByName } from '../../src/sources/registry';
import { vmwareSource } from '../../src/sources/vmware/vmware-source';
import { CommandError } from '../../src/util/command-error';
import { Logger } from '../../src/util/log';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

const VMWARE_DMI = {
  product_name: 'VMware7,1',
  sys_vendor: 'VMware, Inc.',
  product_uuid: '4223A1B2-0000-1111-2222-333344445555',
};
const log = new Logger().for('test');

function contexts(
  platform: Platform,
  opts: { dmi?: Record<string, string>; settings?: Record<string, unknown> } = {},
): { d: DetectContext; c: CrawlContext } {
  const d: DetectContext = {
    platform,
    log,
    kernelCmdline: '',
    dmi: opts.dmi ?? VMWARE_DMI,
    config: { datasource: { VMware: opts.settings ?? {} } },
    finder: new FakeFinder(platform, []),
  };
  return { d, c: { ...d, settings: opts.settings ?? {}, signal: AbortSignal.timeout(30_000) } };
}

/** A platform whose tools answer from a map, recording every command line; nothing runs. */
class FakeToolPlatform extends DryRunPlatform {
  readonly calls: string[][] = [];
  constructor(
    root: string,
    private readonly values: Map<string, string>,
    private readonly tools: string[],
    private readonly broken: string[] = [],
  ) {
    super(new LinuxPlatform({ root, log }));
  }
  override async stat(path: string) {
    return this.tools.includes(path) ? { type: 'file' as const, mode: 0o755, size: 1 } : undefined;
  }
  override async run(cmd: string[] | string, _opts: RunOpts = {}): Promise<RunResult> {
    const argv = typeof cmd === 'string' ? [cmd] : cmd;
    this.calls.push(argv);
    const rpc = argv[argv.length - 1] as string;
    const fail = (code: number, stderr: string) => {
      throw new CommandError(`command failed`, { argv, code, stdout: '', stderr });
    };
    if (this.broken.includes(argv[0] as string)) fail(2, 'Failed sending message to VMware.');
    const [verb, key, ...rest] = rpc.split(' ');
    if (verb === 'info-get')
      return this.values.has(key as string)
        ? { code: 0, stdout: `${this.values.get(key as string)}\n`, stderr: '' }
        : fail(1, 'No value found');
    if (verb === 'info-set') {
      this.values.set(key as string, rest.join(' '));
      return { code: 0, stdout: '', stderr: '' };
    }
    return fail(1, 'Unknown command');
  }
}

test('vmware-rpctool gets one argument per RPC; redact clears each key to --- and its encoding to one space', async (t) => {
  const values = new Map([
    ['guestinfo.metadata', '{"instance-id": "iid-1", "redact": ["userdata"]}'],
    ['guestinfo.userdata', '#cloud-config\n{}'],
  ]);
  const p = new FakeToolPlatform(tempDir(t), values, ['/usr/bin/vmware-rpctool', '/usr/bin/vmtoolsd']);
  const { d, c } = contexts(p);
  assert.equal(await vmwareSource.detect(d), true);
  const data = await vmwareSource.crawl(c);
  assert.equal(data.instanceId, 'iid-1');
  assert.equal(data.subplatform, 'guestinfo (guestinfo.metadata)');
  assert.deepEqual(p.calls.slice(-2), [
    ['/usr/bin/vmware-rpctool', 'info-set guestinfo.userdata ---'],
    ['/usr/bin/vmware-rpctool', 'info-set guestinfo.userdata.encoding  '],
  ]);
  assert.ok(
    p.calls.every((a) => a[0] === '/usr/bin/vmware-rpctool'),
    'vmtoolsd is only the fallback',
  );
  assert.equal(values.get('guestinfo.userdata'), '---');
});

test('vmtoolsd takes the RPC after --cmd, alone or as the fallback when vmware-rpctool fails', async (t) => {
  const values = new Map([['guestinfo.metadata', 'instance-id: iid-2']]);
  const alone = new FakeToolPlatform(tempDir(t), values, ['/usr/sbin/vmtoolsd']);
  assert.equal((await vmwareSource.crawl(contexts(alone).c)).instanceId, 'iid-2');
  assert.deepEqual(alone.calls[0], ['/usr/sbin/vmtoolsd', '--cmd', 'info-get guestinfo.metadata']);
  const fallback = new FakeToolPlatform(
    tempDir(t),
    values,
    ['/usr/bin/vmware-rpctool', '/usr/sbin/vmtoolsd'],
    ['/usr/bin/vmware-rpctool'],
  );
  assert.equal((await vmwareSource.crawl(contexts(fallback).c)).instanceId, 'iid-2');
  assert.deepEqual(
    fallback.calls.map((a) => a[0]),
    ['/usr/bin/vmware-rpctool', '/usr/sbin/vmtoolsd', '/usr/sbin/vmtoolsd', '/usr/sbin/vmtoolsd', '/usr/sbin/vmtoolsd'],
  );
});

test('without instance-id the DMI product_uuid, lower-cased, is the instance id (cloud-init reads product_uuid)', async (t) => {
  const p = new FakeToolPlatform(tempDir(t), new Map([['guestinfo.userdata', '#!/bin/sh\necho hi']]), [
    '/usr/bin/vmware-rpctool',
  ]);
  const data = await vmwareSource.crawl(contexts(p).c);
  assert.equal(data.instanceId, '4223a1b2-0000-1111-2222-333344445555');
  assert.equal(data.metadata['instance-id'], '4223a1b2-0000-1111-2222-333344445555');
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#!/bin/sh\necho hi');
});

test('a failing tool with no fallback: detect says no, crawl names the tool and the key', async (t) => {
  const p = new FakeToolPlatform(tempDir(t), new Map(), ['/usr/bin/vmware-rpctool'], ['/usr/bin/vmware-rpctool']);
  const { d, c } = contexts(p);
  assert.equal(await vmwareSource.detect(d), false);
  await assert.rejects(
    vmwareSource.crawl(c),
    (e: unknown) =>
      e instanceof SourceError &&
      /vmware-rpctool 'info-get guestinfo.metadata' failed \(exit 2\): Failed sending message/.test(e.message),
  );
});

test('all three keys unset or cleared (---): not detected, and the crawl says so', async (t) => {
  const p = new FakeToolPlatform(
    tempDir(t),
    new Map([
      ['guestinfo.metadata', '---'],
      ['guestinfo.userdata', '   '],
    ]),
    ['/usr/bin/vmware-rpctool'],
  );
  const { d, c } = contexts(p);
  assert.equal(await vmwareSource.detect(d), false);
  await assert.rejects(
    vmwareSource.crawl(c),
    /guestinfo.metadata, guestinfo.userdata and guestinfo.vendordata are all unset or empty/,
  );
});

test('bad metadata: not a mapping, bad network version, bad network encoding, bad YAML all name the key', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ 'guestinfo.metadata': '[1, 2]' }, /guestinfo.metadata must be a mapping, not a list/],
    [
      { 'guestinfo.metadata': 'instance-id: x\nnetwork: {version: 3}' },
      /guestinfo.metadata network: 'version' must be 1 or 2, not 3/,
    ],
    [
      { 'guestinfo.metadata': 'instance-id: x\nnetwork: "%%%"\nnetwork.encoding: base64' },
      /guestinfo.metadata network is not valid base64/,
    ],
    [{ 'guestinfo.metadata': 'instance-id: x\nkey: [unclosed' }, /guestinfo.metadata/],
  ];
  for (const [values, why] of cases) {
    const p = new FakeToolPlatform(tempDir(t), new Map(Object.entries(values)), ['/usr/bin/vmware-rpctool']);
    await assert.rejects(
      vmwareSource.crawl(contexts(p).c),
      (e: unknown) => e instanceof SourceError && why.test(e.message),
      JSON.stringify(values),
    );
  }
});

test("gz+b64 data that is not gzip at all is used as it is, as cloud-init's decomp_gzip does", async (t) => {
  const values = new Map([
    ['guestinfo.metadata', 'instance-id: x'],
    ['guestinfo.vendordata', 'AAAA'],
    ['guestinfo.vendordata.encoding', 'gz+b64'],
  ]);
  const data = await vmwareSource.crawl(
    contexts(new FakeToolPlatform(tempDir(t), values, ['/usr/bin/vmware-rpctool'])).c,
  );
  assert.deepEqual([...(data.vendorData ?? [])], [0, 0, 0]);
});

test("the registry knows VMware, placed before None as in cloud-init's datasource_list", () => {
  assert.equal(datasourceByName('vmware'), vmwareSource);
});

// ---- real processes: a fake tool (busybox sh) answering from /guestinfo in a chroot sandbox ----

const FAKE_TOOL = `#!/bin/sh
# A stand-in for open-vm-tools' vmware-rpctool (or vmtoolsd --cmd): answers from /guestinfo, as the VMX would.
[ "$1" = --cmd ] && shift
[ -e /tool-behaviour ] && case "$(cat /tool-behaviour)" in
  hang) sleep 30 ;;
  fail) echo "Failed sending message to VMware." >&2; exit 2 ;;
esac
case "$1" in
  "info-get "*) k="\${1#info-get }"
    if [ -f "/guestinfo/$k" ]; then cat "/guestinfo/$k"; else echo "No value found" >&2; exit 1; fi ;;
  "info-set "*) rest="\${1#info-set }"; k="\${rest%% *}"; printf '%s' "\${rest#* }" > "/guestinfo/$k" ;;
  *) echo "Unknown command" >&2; exit 1 ;;
esac
`;

function sandbox(
  t: TestContext,
  fixture: string | undefined,
  opts: { tool?: 'vmware-rpctool' | 'vmtoolsd'; behaviour?: 'hang' | 'fail' } = {},
): string | undefined {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && existsSync('/usr/bin/busybox'),
      'needs root, unshare, chroot and a static /usr/bin/busybox for the chroot sandbox',
    )
  )
    return undefined;
  const root = tempDir(t, 'kiln-vmware-');
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'usr/bin'), { recursive: true });
  copyFileSync('/usr/bin/busybox', join(root, 'bin/busybox'));
  chmodSync(join(root, 'bin/busybox'), 0o755);
  for (const applet of ['sh', 'cat', 'sleep', 'printf']) symlinkSync('busybox', join(root, 'bin', applet));
  writeFileSync(join(root, 'usr/bin', opts.tool ?? 'vmware-rpctool'), FAKE_TOOL, { mode: 0o755 });
  mkdirSync(join(root, 'guestinfo'));
  if (fixture)
    cpSync(join(FIXTURES, 'sources/vmware', fixture, 'guestinfo'), join(root, 'guestinfo'), { recursive: true });
  if (opts.behaviour) writeFileSync(join(root, 'tool-behaviour'), opts.behaviour);
  return root;
}

test('chroot: YAML metadata, gz+b64 user data, base64 vendor data, v2 network, keys; the redacted keys are cleared in guestinfo', async (t) => {
  const root = sandbox(t, 'guestinfo-full');
  if (!root) return;
  const { d, c } = contexts(new LinuxPlatform({ root, log }));
  assert.equal(await vmwareSource.detect(d), true);
  const data = await vmwareSource.crawl(c);
  assert.equal(data.instanceId, 'iid-vsphere-web1');
  assert.equal(data.localHostname, 'web1.example.internal');
  assert.deepEqual(data.publicKeys, [
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFullKeyOne one@example',
    'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQFullKeyTwo two@example',
  ]);
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\npackages: [nginx]\n');
  assert.equal(Buffer.from(data.vendorData ?? []).toString(), '#cloud-config\nntp: {enabled: true}\n');
  assert.deepEqual(data.networkConfig, {
    format: 'v2',
    config: { version: 2, ethernets: { nics: { match: { name: 'ens*' }, dhcp4: true } } },
  });
  assert.deepEqual(data.metadata.network, {
    config: { version: 2, ethernets: { nics: { match: { name: 'ens*' }, dhcp4: true } } },
  });
  const gi = (k: string) => readFileSync(join(root, 'guestinfo', k), 'utf8');
  assert.equal(gi('guestinfo.userdata'), '---');
  assert.equal(gi('guestinfo.userdata.encoding'), ' ');
  assert.equal(gi('guestinfo.vendordata'), '---');
  assert.match(gi('guestinfo.metadata'), /instance-id: iid-vsphere-web1/, 'metadata itself is not listed, so it stays');
});

test('chroot: JSON metadata whose network is gzip+base64 v1 text; public_keys; user data cleared (---) counts as none', async (t) => {
  const root = sandbox(t, 'guestinfo-network-b64', { tool: 'vmtoolsd' });
  if (!root) return;
  const data = await vmwareSource.crawl(contexts(new LinuxPlatform({ root, log })).c);
  assert.equal(data.instanceId, '4223a1b2-0000-1111-2222-333344445555');
  assert.equal(data.localHostname, 'db2');
  assert.deepEqual(data.publicKeys, ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJsonKey json@example']);
  assert.equal(data.userData, undefined);
  assert.equal(data.networkConfig?.format, 'v1');
  assert.ok(data.networkConfig, 'a network config');
  assert.deepEqual((data.networkConfig.config as { config: Array<{ name: string }> }).config[0]?.name, 'ens192');
  assert.equal('network.encoding' in data.metadata, false);
});

test('chroot: corrupt gzip user data is an error naming guestinfo.userdata', async (t) => {
  const root = sandbox(t, 'guestinfo-bad-gzip');
  if (!root) return;
  await assert.rejects(
    vmwareSource.crawl(contexts(new LinuxPlatform({ root, log })).c),
    (e: unknown) =>
      e instanceof SourceError && /guestinfo.userdata is not valid gzip \(encoding gzip\+base64\)/.test(e.message),
  );
});

test('chroot: a hanging tool is bounded by datasource.VMware.timeout in detect and crawl', {
  timeout: 60_000,
}, async (t) => {
  const root = sandbox(t, 'guestinfo-full', { behaviour: 'hang' });
  if (!root) return;
  const { d, c } = contexts(new LinuxPlatform({ root, log }), { settings: { timeout: 1 } });
  // Both end (the tool never would): detect says no, crawl names the 1 s limit that stopped it.
  assert.equal(await vmwareSource.detect(d), false);
  await assert.rejects(
    vmwareSource.crawl(c),
    (e: unknown) =>
      e instanceof SourceError &&
      /vmware-rpctool 'info-get guestinfo.metadata' failed \(timed out after 1000 ms\)/.test(e.message),
  );
});

test('chroot: a failing tool (exit 2) is an error with its message', async (t) => {
  const root = sandbox(t, 'guestinfo-full', { behaviour: 'fail' });
  if (!root) return;
  await assert.rejects(
    vmwareSource.crawl(contexts(new LinuxPlatform({ root, log })).c),
    /failed \(exit 2\): Failed sending message to VMware/,
  );
});

test('the older cleanup-guestinfo key (a string) clears as redact does', async (t) => {
  const values = new Map([['guestinfo.metadata', 'instance-id: iid-3\ncleanup-guestinfo: userdata']]);
  const p = new FakeToolPlatform(tempDir(t), values, ['/usr/bin/vmware-rpctool']);
  await vmwareSource.crawl(contexts(p).c);
  assert.deepEqual(
    p.calls.slice(-2).map((a) => a[1]),
    ['info-set guestinfo.userdata ---', 'info-set guestinfo.userdata.encoding  '],
  );
});
