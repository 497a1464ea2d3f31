// Parity: Debian 13's cloud-init 25.1 (PARITY_SUITE: `init --local` in a trixie rootfs copy with fake DMI, a fake
// vmware-rpctool and systemd-detect-virt answering as a VM, notAContainer) and kiln's VMware and OVF sources read
// the same guestinfo, VMX_GUESTINFO variables and ovf-env.xml: instance data, user and vendor data, the guestinfo
// left behind (redaction) and the rendered ENI network must match.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { rendererConfigFor } from '../../src/net/distro-renderer-configs';
import { parseNetworkInput } from '../../src/net/parse-network-config';
import { RENDERERS } from '../../src/net/renderers';
import { shortLocalHostname } from '../../src/runner/instance-data';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { CrawlContext, Datasource, InstanceData } from '../../src/sources/datasource';
import { ovfSource } from '../../src/sources/ovf/ovf-source';
import { vmwareSource } from '../../src/sources/vmware/vmware-source';
import { Logger } from '../../src/util/log';
import { copyRootfs } from '../helpers/debian-rootfs';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from '../sources/fake-finder';
import { PARITY_SUITE } from './run-case';
import { notAContainer, runStage } from './sandbox-stages';

const FAKE_RPCTOOL = `#!/bin/sh
# Stands in for open-vm-tools' vmware-rpctool: answers from /guestinfo, as the VMX would.
case "$1" in
  "info-get "*) k="\${1#info-get }"
    if [ -f "/guestinfo/$k" ]; then cat "/guestinfo/$k"; else echo "No value found" >&2; exit 1; fi ;;
  "info-set "*) rest="\${1#info-set }"; k="\${rest%% *}"; printf '%s' "\${rest#* }" > "/guestinfo/$k" ;;
  *) echo "Unknown command" >&2; exit 1 ;;
esac
`;

interface Case {
  name: string;
  source: Datasource;
  dmi: Record<string, string>;
  /** A fixture folder whose guestinfo/ becomes /guestinfo (with the fake rpctool installed). */
  guestinfo?: string;
  /** A fixture folder copied over the root. */
  rootTree?: string;
  env?: Record<string, string>;
}

const VMWARE_DMI = {
  product_name: 'VMware7,1',
  sys_vendor: 'VMware, Inc.',
  product_uuid: '4223A1B2-0000-1111-2222-333344445555',
};
const envMeta = Buffer.from(
  JSON.stringify({
    'instance-id': 'iid-env',
    'local-hostname': 'envhost',
    public_keys_data: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEnv env@example',
  }),
).toString('base64');
const CASES: Case[] = [
  {
    name: 'vmware guestinfo: YAML, gz+b64, base64, v2 network, redact',
    source: vmwareSource,
    dmi: VMWARE_DMI,
    guestinfo: 'sources/vmware/guestinfo-full',
  },
  {
    name: 'vmware guestinfo: JSON, gzip+base64 v1 network, instance id from product_uuid',
    source: vmwareSource,
    dmi: VMWARE_DMI,
    guestinfo: 'sources/vmware/guestinfo-network-b64',
  },
  {
    name: 'vmware envvar transport',
    source: vmwareSource,
    dmi: { product_name: 'Standard PC (Q35 + ICH9, 2009)', sys_vendor: 'QEMU' },
    env: {
      VMX_GUESTINFO: '1',
      VMX_GUESTINFO_METADATA: envMeta,
      VMX_GUESTINFO_METADATA_ENCODING: 'b64',
      VMX_GUESTINFO_VENDORDATA: '#cloud-config\n{}\n',
    },
  },
  {
    name: 'ovf seed folder with a file:// seedfrom',
    source: ovfSource,
    dmi: { product_name: 'Standard PC (Q35 + ICH9, 2009)', sys_vendor: 'QEMU' },
    rootTree: 'sources/ovf/seed-dir/root',
  },
];

const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('utf8'));
const readIf = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined);
const dirState = (d: string) =>
  existsSync(d)
    ? Object.fromEntries(
        readdirSync(d)
          .sort()
          .map((f) => [f, readFileSync(join(d, f), 'utf8')]),
      )
    : {};

/** Puts CASE's inputs into ROOT afresh (no state of an earlier run left). */
function prepare(root: string, c: Case): void {
  for (const p of [
    'var/lib/cloud',
    'run/cloud-init',
    'guestinfo',
    'etc/network/interfaces.d/50-cloud-init',
    'usr/bin/vmware-rpctool',
    'srv/ovf-seed',
    'var/log/cloud-init.log',
  ])
    rmSync(join(root, p), { recursive: true, force: true });
  rmSync(join(root, 'sys'), { recursive: true, force: true });
  mkdirSync(join(root, 'sys/class/dmi/id'), { recursive: true });
  for (const [k, v] of Object.entries(c.dmi)) writeFileSync(join(root, 'sys/class/dmi/id', k), `${v}\n`);
  if (c.guestinfo) {
    cpSync(join(FIXTURES, c.guestinfo, 'guestinfo'), join(root, 'guestinfo'), { recursive: true });
    writeFileSync(join(root, 'usr/bin/vmware-rpctool'), FAKE_RPCTOOL, { mode: 0o755 });
  }
  if (c.rootTree) cpSync(join(FIXTURES, c.rootTree), root, { recursive: true });
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90-kiln-parity.cfg'), `datasource_list: [${c.source.name}, None]\n`);
}

test('kiln reads VMware guestinfo and OVF environments as cloud-init 25.1 does', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the Debian cloud-init rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-vmware-parity-'), { suite: PARITY_SUITE });
  notAContainer(root);
  const log = new Logger().for('test');
  for (const c of CASES) {
    await t.test(c.name, async () => {
      prepare(root, c);
      // init-local crawls (both sources are local in 25.1) and renders the network; instance-data.json is the crawl's.
      const local = runStage(root, { name: 'init-local', args: ['init', '--local'] }, 120_000, c.env ?? {});
      assert.equal(local.code, 0, `cloud-init init --local failed: ${local.stderr}`);
      const docPath = join(root, 'run/cloud-init/instance-data-sensitive.json');
      assert.ok(
        existsSync(docPath),
        `cloud-init found no datasource:\n${readIf(join(root, 'var/log/cloud-init.log'))?.slice(-3000)}`,
      );
      const theirs = JSON.parse(readFileSync(docPath, 'utf8')) as {
        v1: Record<string, unknown>;
        ds: { meta_data: Record<string, unknown> };
      };
      const theirGuestinfo = dirState(join(root, 'guestinfo'));
      const theirEni = readIf(join(root, 'etc/network/interfaces.d/50-cloud-init'));
      // These sources are dsmode net: cloud-init writes user-data.txt and vendor-data.txt in the init stage, from the
      // cached crawl.
      const init = runStage(root, { name: 'init', args: ['init'] }, 180_000, c.env ?? {});
      assert.equal(init.code, 0, `cloud-init init failed: ${init.stderr}`);
      // (/var/lib/cloud/instance is an absolute link: read the instance's folder inside the root.)
      const instanceDir = join(root, 'var/lib/cloud/instances', String(theirs.v1.instance_id));
      const theirUserData = readIf(join(instanceDir, 'user-data.txt'));
      const theirVendorData = readIf(join(instanceDir, 'vendor-data.txt'));
      assert.deepEqual(
        dirState(join(root, 'guestinfo')),
        theirGuestinfo,
        'the init stage does not read guestinfo again',
      );

      prepare(root, c);
      const platform = new LinuxPlatform({ root, log });
      const ctx: CrawlContext = {
        platform,
        log,
        kernelCmdline: '',
        dmi: c.dmi,
        config: {},
        finder: new FakeFinder(platform, []),
        settings: {},
        ...(c.env ? { env: c.env } : {}),
      };
      assert.equal(await c.source.detect(ctx), true, 'kiln detects it');
      const data: InstanceData = await c.source.crawl(ctx);

      assert.equal(data.instanceId, theirs.v1.instance_id, 'instance_id');
      assert.equal(shortLocalHostname(data.localHostname) ?? null, theirs.v1.local_hostname, 'local_hostname');
      assert.equal(data.localHostname, theirs.ds.meta_data['local-hostname'], 'local-hostname as given');
      // Deliberate: 25.1 (as 22.4) keeps the empty lines of a public-keys string as '' keys in public_ssh_keys
      // (normalize_pubkey_data's splitlines); kiln drops them.
      assert.deepEqual(
        data.publicKeys,
        (theirs.v1.public_ssh_keys as string[]).filter((k) => k !== ''),
        'public_ssh_keys',
      );
      assert.equal(data.cloudName, theirs.v1.cloud_name, 'cloud_name');
      assert.equal(data.platform, theirs.v1.platform, 'platform');
      assert.equal(data.subplatform, theirs.v1.subplatform, 'subplatform');
      assert.deepEqual(data.metadata, theirs.ds.meta_data, 'ds.meta_data');
      assert.equal(text(data.userData) ?? '', theirUserData ?? '', 'user-data.txt');
      assert.equal(text(data.vendorData) ?? '', theirVendorData ?? '', 'vendor-data.txt');
      assert.deepEqual(dirState(join(root, 'guestinfo')), theirGuestinfo, 'guestinfo after the crawl (redaction)');
      if (data.networkConfig) {
        const nc = data.networkConfig;
        const ns = parseNetworkInput(nc.format === 'v1' ? 'v1' : 'v2', { network: nc.config }, {});
        const eni = RENDERERS.eni
          .render(ns, rendererConfigFor('debian', 'eni'))
          .find((f) => f.path === '/etc/network/interfaces.d/50-cloud-init');
        assert.equal(eni?.content, theirEni, 'the rendered ENI');
      }
    });
  }
});
