// ubuntu_autoinstall: validation only, and only when an installer snap is present, as cloud-init 22.4.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ubuntuAutoinstallModule } from '../../src/modules/ubuntu-autoinstall';
import type { RunResult } from '../../src/platform/platform';
import { tempDir } from '../helpers/temp';
import { dryContext, type DryContext } from './late-context';

const UBUNTU = { name: 'ubuntu', family: 'debian', version: '22.04' } as const;
const SNAP_LIST =
  'Name      Version  Rev   Tracking       Publisher   Notes\ncore20    20230207 1828  latest/stable  canonical✓  base\nsubiquity 22.10.1  4381  latest/stable  canonical✓  classic\n';

function snapContext(root: string, snapList: string): DryContext {
  const ctx = dryContext(root, { distro: UBUNTU });
  const run = ctx.dry.run.bind(ctx.dry);
  ctx.dry.run = async (cmd, opts): Promise<RunResult> => ({ ...(await run(cmd, opts)), stdout: snapList });
  return ctx;
}

test('ubuntu_autoinstall with subiquity present accepts an integer version and names the bad key otherwise', async (t) => {
  const root = tempDir(t);
  const ok = snapContext(root, SNAP_LIST);
  await ubuntuAutoinstallModule.run(ok, { autoinstall: { version: 1, identity: { hostname: 'x' } } });
  assert.deepEqual(ok.commands(), ['snap list']);
  assert.ok(ok.lines.some((l) => l.includes('Valid autoinstall schema. Config will be processed by subiquity')));
  await assert.rejects(
    ubuntuAutoinstallModule.run(snapContext(root, SNAP_LIST), { autoinstall: { identity: {} } }),
    /autoinstall: Missing required 'version' key/,
  );
  await assert.rejects(
    ubuntuAutoinstallModule.run(snapContext(root, SNAP_LIST), { autoinstall: { version: '1' } }),
    /autoinstall\.version: Expected int type but found: str/,
  );
  await assert.rejects(
    ubuntuAutoinstallModule.run(snapContext(root, SNAP_LIST), { autoinstall: [1] }),
    /autoinstall: Expected dict type but found: list/,
  );
});

test('ubuntu_autoinstall without an installer snap only warns, even for a bad section; without the key runs nothing', async (t) => {
  const root = tempDir(t);
  const ctx = snapContext(root, 'Name Version\ncore20 20230207\n');
  await ubuntuAutoinstallModule.run(ctx, { autoinstall: 'not a mapping' });
  assert.ok(
    ctx.lines.some((l) =>
      l.includes(
        'Skipping autoinstall module. Expected one of the Ubuntu installer snap packages to be present: subiquity, ubuntu-desktop-installer',
      ),
    ),
  );
  const none = snapContext(root, SNAP_LIST);
  await ubuntuAutoinstallModule.run(none, {});
  assert.deepEqual(none.commands(), []);
});
