// Parity: cloud-init 22.4's DataSourceOracle (Debian's, run in the cached rootfs) and kiln read the same mock IMDS;
// metadata, keys, user data, the metadata address and the network config must be the same.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { convertOracleNetwork } from '../../src/sources/oracle/network-format';
import type { NicFacts } from '../../src/net/sys-class-net';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { oracleSource } from '../../src/sources/oracle/oracle';
import { startMetadataServer } from '../../src/metadata-server/metadata-server';
import { Logger } from '../../src/util/log';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from '../sources/fake-finder';

/**
 * Drives cloud-init's own functions: read_opc_metadata against the mock (its address patched in), the metadata
 * dict _get_data builds, normalize_pubkey_data, and the network_config property with the interfaces by MAC and
 * the klibc files given (nothing is read from the rootfs's /run or /sys).
 */
const CLOUD_INIT_SIDE = String.raw`
import base64, json, sys
from cloudinit import sources, util
from cloudinit.sources import DataSourceOracle as O
args = json.loads(sys.argv[1])
O.METADATA_ROOT = args["url"] + "/opc/v{version}/"
O.METADATA_PATTERN = O.METADATA_ROOT + "{path}/"
files = args["klibc"]
real_load = util.load_file
util.load_file = lambda p, *a, **k: files[p] if p in files else real_load(p, *a, **k)
macs = args["macs"]
O.get_interfaces_by_mac = lambda: {m: n for n, m in macs.items()}
O.is_netfail_master = lambda name: False
ds = O.DataSourceOracle.__new__(O.DataSourceOracle)
ds.ds_cfg = {"configure_secondary_nics": args["secondary"]}
ds._network_config_source = O.KlibcOracleNetworkConfigSource(_files=list(files), _mac_addrs=macs, _cmdline="")
ds._network_config = {"config": [], "version": 1}
md = O.read_opc_metadata(fetch_vnics_data=not ds._is_iscsi_root() or args["secondary"])
ds._vnics_data = md.vnics_data
data = md.instance_data
meta = {"availability-zone": data["ociAdName"], "instance-id": data["id"], "launch-index": 0, "local-hostname": data["hostname"], "name": data["displayName"]}
ud = None
if "metadata" in data:
    if data["metadata"].get("user_data"):
        ud = base64.b64decode(data["metadata"]["user_data"]).decode()
    meta["public_keys"] = data["metadata"].get("ssh_authorized_keys")
net = ds.network_config
print(json.dumps({"address": O.METADATA_ROOT.format(version=md.version), "metadata": meta, "keys": sources.normalize_pubkey_data(meta.get("public_keys")), "userData": ud, "network": net if net.get("config") else None}))
`;

const MACS: Record<string, string> = { ens3: '02:00:17:05:d1:db', ens5: '02:00:17:0d:6b:be' };
const NICS: NicFacts[] = Object.entries(MACS).map(([name, mac]) => ({ name, mac, driver: 'mlx5_core', isBridge: false, isBond: false, hasMaster: false, standbyFeature: false }));
const KLIBC = { '/run/net-ens3.conf': "DEVICE='ens3'\nPROTO='dhcp'\nIPV4ADDR='10.0.0.8'\nIPV4NETMASK='255.255.255.0'\nIPV4BROADCAST='10.0.0.255'\nIPV4GATEWAY='10.0.0.1'\nIPV4DNS0='169.254.169.254'\nIPV4DNS1='0.0.0.0'\nHOSTNAME='kiln-oci-test'\nDNSDOMAIN='sub.vcn.oraclevcn.com'\nfilename=''\n" };

const CASES: Array<{ name: string; tree: string; secondary: boolean; klibc: Record<string, string> }> = [
  { name: 'a VM on IMDS v2: every VNIC from the IMDS', tree: 'happy-v2', secondary: false, klibc: {} },
  { name: 'IMDS v1 only', tree: 'v1-fallback', secondary: false, klibc: {} },
  { name: 'no instance metadata', tree: 'no-metadata', secondary: false, klibc: {} },
  { name: 'iSCSI root: the initramfs config only', tree: 'happy-v2', secondary: false, klibc: KLIBC },
  { name: 'iSCSI root with configure_secondary_nics', tree: 'happy-v2', secondary: true, klibc: KLIBC },
];

/** python3 in the rootfs (chroot, the host's network), asynchronously: the mock answers from this process. */
function runCloudInit(rootfs: string, args: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('chroot', [rootfs, 'python3', '-', JSON.stringify(args)], { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', PYTHONDONTWRITEBYTECODE: '1', LANG: 'C.UTF-8' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => void (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => void (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`cloud-init's side failed (${code}): ${err}`))));
    child.stdin.end(CLOUD_INIT_SIDE);
  });
}

test("kiln's Oracle source reads the mock as cloud-init 22.4's DataSourceOracle does", async (t) => {
  if (!need(t, isRoot() && hasCommand('chroot') && hasCommand('debootstrap'), 'needs root, chroot and debootstrap for the Debian cloud-init rootfs')) return;
  const rootfs = ensureDebianRootfs();
  const log = new Logger().for('test');
  for (const c of CASES) {
    const server = await startMetadataServer({ kind: 'oracle', dir: join(FIXTURES, 'sources/oracle', c.tree, 'tree') });
    try {
      const theirs = JSON.parse(await runCloudInit(rootfs, { url: server.url, klibc: c.klibc, macs: MACS, secondary: c.secondary })) as Record<string, unknown>;
      const platform = new LinuxPlatform({ root: tempDir(t), log });
      const data = await oracleSource.crawl({ platform, log, kernelCmdline: '', dmi: { chassis_asset_tag: 'OracleCloud.com' }, config: {}, finder: new FakeFinder(platform), settings: { configure_secondary_nics: c.secondary, timeout: 2, max_wait: 10 }, baseUrl: server.url });
      assert.equal(data.subplatform, `metadata (${String(theirs.address)})`, c.name);
      assert.deepEqual(data.metadata, theirs.metadata, c.name);
      assert.deepEqual(data.publicKeys, theirs.keys, c.name);
      assert.equal(data.userData === undefined ? null : Buffer.from(data.userData).toString('utf8'), theirs.userData, c.name);
      assert.deepEqual(convertOracleNetwork(data.networkConfig?.config, NICS, c.klibc) ?? null, theirs.network, c.name);
    } finally {
      await server.close();
    }
  }
});
