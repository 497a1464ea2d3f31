// Parity: whether a known instance's network config is rendered again on a later boot, decided by cloud-init 25.1's
// own Init.apply_network_config (Debian's, python3 in the parity rootfs) and by kiln's bootNetworkEvent, for sources
// with their own default update events and the base class, with and without the user's `updates`; and whether
// the hotplug event is enabled (stages.update_event_enabled, which install_hotplug and the hotplug hook ask).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bootNetworkEvent, updateEventEnabled } from '../../src/sources/update-events';
import { runCloudInitPython } from '../helpers/cloud-init-python';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { PARITY_SUITE } from './run-case';

/**
 * 25.1's Init with only its surroundings replaced: the datasource is the real class whose detection and _get_data
 * succeed (the metadata "updated"; instance-data.json is not written), is_new_instance says no, the per-boot semaphore
 * is given, and the distro records the render.
 */
const CLOUD_INIT_SIDE = `
import importlib, json, sys, tempfile
from cloudinit import distros, helpers, stages
from cloudinit.event import EventScope, EventType
cases = json.loads(sys.argv[1])
tmp = tempfile.mkdtemp()
paths = helpers.Paths({"cloud_dir": tmp + "/lib", "run_dir": tmp + "/run"})
class Recorder:
    calls = 0
    class networking:
        @staticmethod
        def wait_for_physdevs(netcfg): pass
    def apply_network_config(self, netcfg, bring_up):
        Recorder.calls += 1
rec = Recorder()
class FakeInit(stages.Init):
    def __init__(self, ds, cfg, applied):
        super().__init__()
        self.datasource, self._fake_cfg, self._applied = ds, cfg, applied
    cfg = property(lambda self: self._fake_cfg)
    distro = property(lambda self: rec)
    paths = property(lambda self: paths)
    def is_new_instance(self): return False
    def _network_already_configured(self): return self._applied
    def _find_networking_config(self): return ({"version": 1, "config": []}, "ds")
    def _apply_netcfg_names(self, netcfg): pass
out = []
for c in cases:
    mod = importlib.import_module("cloudinit.sources.DataSource" + c["source"])
    cls = getattr(mod, "DataSource" + c["source"])
    cls._get_data = lambda self: True
    cls.ds_detect = lambda self: True
    cls.persist_instance_data = lambda self, write_cache=True: True
    ds = cls({}, distros.fetch("debian")("debian", {}, paths), paths)
    before = Recorder.calls
    FakeInit(ds, c["cfg"], c["applied"]).apply_network_config(bring_up=False)
    hotplug = stages.update_event_enabled(datasource=ds, cfg=c["cfg"], event_source_type=EventType.HOTPLUG, scope=EventScope.NETWORK)
    out.append([Recorder.calls > before, hotplug])
print(json.dumps(out))
`;

const SOURCES = ['RbxCloud', 'SmartOS', 'Scaleway', 'Azure', 'NoCloud', 'Ec2', 'GCE', 'AliYun', 'OpenStack'];
const USER: Array<Record<string, unknown>> = [
  {},
  { updates: { network: { when: ['boot-new-instance'] } } },
  { updates: { network: { when: ['boot'] } } },
  { updates: { network: { when: ['boot-legacy'] } } },
  { updates: { network: { when: ['boot-new-instance', 'hotplug'] } } },
];

test("a later boot renders the network again exactly when cloud-init 25.1's apply_network_config does", (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the Debian cloud-init rootfs',
    )
  )
    return;
  const rootfs = ensureDebianRootfs(PARITY_SUITE);
  const cases = SOURCES.flatMap((source) =>
    USER.flatMap((cfg) => [false, true].map((applied) => ({ source, cfg, applied }))),
  );
  // In the cached rootfs itself, with a private /tmp for the Init's temporary cloud and run folders.
  const theirs = JSON.parse(runCloudInitPython(rootfs, CLOUD_INIT_SIDE, JSON.stringify(cases))) as Array<
    [boolean, boolean]
  >;
  const ours = cases.map((c): [boolean, boolean] => [
    bootNetworkEvent({ source: c.source, cfg: c.cfg, appliedThisBoot: c.applied }) !== undefined,
    updateEventEnabled({ source: c.source, cfg: c.cfg, event: 'hotplug' }),
  ]);
  const table = (v: Array<[boolean, boolean]>) =>
    cases.map(
      (c, i) =>
        `${c.source} ${JSON.stringify(c.cfg)} applied=${c.applied}: rendered ${v[i]?.[0]}, hotplug ${v[i]?.[1]}`,
    );
  assert.deepEqual(table(ours), table(theirs));
  for (const column of [0, 1])
    assert.ok(
      theirs.some((v) => v[column]) && theirs.some((v) => !v[column]),
      `both outcomes occur in column ${column}`,
    );
});
