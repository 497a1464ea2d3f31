// Which config keys switch each module on (its activate_by_schema_keys) checked against the oracle itself: Debian
// 13's cloud-init 25.1.4 imports every cc_* module in a chroot of the trixie rootfs and prints its meta, and each
// module kiln shares with it must list the same keys (kiln's runner skips a module none of whose keys is set, as
// 25.1's _is_active does). grub_dpkg is the one that changed since 22.4 (an empty list there).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MODULES } from '../../src/modules/registry';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

/** One JSON line per cc_* module of the installed cloud-init: its name and sorted activating keys. */
const PYTHON = `
import importlib, json, pkgutil
import cloudinit.config
for info in pkgutil.iter_modules(cloudinit.config.__path__):
    if not info.name.startswith("cc_"):
        continue
    meta = importlib.import_module("cloudinit.config." + info.name).meta
    print(json.dumps([info.name[3:], sorted(meta.get("activate_by_schema_keys", []))]))
`;

test('every module kiln shares with cloud-init 25.1.4 is activated by the same config keys', (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the trixie rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-activation-'), { suite: 'trixie' });
  writeFileSync(join(root, 'tmp/activation.py'), PYTHON);
  const r = spawnSync(
    'unshare',
    [
      '--uts',
      '--ipc',
      '--mount',
      '--pid',
      '--net',
      '--fork',
      '--kill-child',
      'chroot',
      root,
      'python3',
      '/tmp/activation.py',
    ],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  assert.equal(r.status, 0, r.stderr.slice(-3000));
  const theirs = new Map(
    r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as [string, string[]]),
  );
  const shared = MODULES.filter((m) => theirs.has(m.name));
  // Guards the comparison itself: 25.1 has all but the few modules it dropped or never had (raspberry_pi, the rmc ones,
  // rightscale).
  assert.ok(
    shared.length >= 55,
    `only ${shared.length} of kiln's modules found in 25.1.4: ${[...theirs.keys()].join(' ')}`,
  );
  const wrong = shared.flatMap((m) => {
    const keys = JSON.stringify([...m.activateBy].sort());
    const want = JSON.stringify(theirs.get(m.name));
    return keys === want ? [] : [`${m.name}: kiln ${keys}, 25.1.4 ${want}`];
  });
  assert.deepEqual(wrong, []);
});
