// mounts on the running system: `mount -a` after an fstab change, and its failure fails the module, as in cloud-init
// 25.1.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { mounts } from '../../src/modules/mounts';
import type { RunResult } from '../../src/platform/platform';
import { putFile } from './root-files';
import { scriptedModule } from './scripted-module-platform';

/** A scripted context that counts as the running system (mounts are only activated there). */
function running(t: TestContext, answers: Record<string, Partial<RunResult>>) {
  const s = scriptedModule(t, answers);
  Object.defineProperty(s.dry, 'root', { get: () => '/' });
  putFile(s.root, '/etc/fstab', '');
  return s;
}

const CFG = { mounts: [['LABEL=scratch', '/scratch', 'ext4', 'defaults,nofail', '0', '2']] };

test('a new fstab entry runs mount -a; its failure fails the module with the command and its error', async (t) => {
  const ok = running(t, {});
  await mounts.run(ok.ctx, CFG);
  assert.ok(ok.commands().includes('mount -a'), ok.commands().join('\n'));
  const failing = running(t, { 'mount -a': { code: 64, stderr: "mount: /scratch: can't find LABEL=scratch." } });
  await assert.rejects(
    mounts.run(failing.ctx, CFG),
    /command 'mount -a' exited with code 64: mount: \/scratch: can't find LABEL=scratch\./,
  );
});
