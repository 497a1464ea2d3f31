// set_passwords' ssh_pwauth: how sshd is restarted once PasswordAuthentication changed, as cloud-init 25.1 does it.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { setPasswords } from '../../src/modules/set-passwords';
import type { RunResult } from '../../src/platform/platform';
import { putFile } from './root-files';
import { scriptedModule } from './scripted-module-platform';

/**
 * A scripted context that counts as the running system (restarts are only tried there), sshd_config saying no (so
 * ssh_pwauth: true changes it).
 */
function running(t: TestContext, answers: Record<string, Partial<RunResult>>, systemd: boolean) {
  const s = scriptedModule(t, answers);
  Object.defineProperty(s.dry, 'root', { get: () => '/' });
  putFile(s.root, '/etc/ssh/sshd_config', 'PasswordAuthentication no\n');
  if (systemd) mkdirSync(join(s.root, 'run/systemd/system'), { recursive: true });
  return s;
}

const restarts = (commands: string[]) => commands.filter((c) => /restart|ActiveState/.test(c));

test('without systemd, sshd is restarted through the service tool whatever its state; a failure is a warning', async (t) => {
  const s = running(t, {}, false);
  await setPasswords.run(s.ctx, { ssh_pwauth: true, system_info: { ssh_svcname: 'ssh' } });
  assert.deepEqual(restarts(s.commands()), ['service ssh restart']);
  const failing = running(t, { 'service ssh restart': { code: 1, stderr: 'sshd: no hostkeys available' } }, false);
  await setPasswords.run(failing.ctx, { ssh_pwauth: true, system_info: { ssh_svcname: 'ssh' } });
  assert.match(
    failing.ctx.problems.join('\n'),
    /WARNING: 'ssh_pwauth' configuration may not be applied\. Cloud-init was unable to restart SSH daemon due to error: .*no hostkeys available/,
  );
});

test('under systemd, only an active sshd is restarted, ignoring its dependencies', async (t) => {
  const active = running(t, { 'systemctl show --property ActiveState --value ssh': { stdout: 'active\n' } }, true);
  await setPasswords.run(active.ctx, { ssh_pwauth: true, system_info: { ssh_svcname: 'ssh' } });
  assert.deepEqual(restarts(active.commands()), [
    'systemctl show --property ActiveState --value ssh',
    'systemctl restart ssh --job-mode=ignore-dependencies',
  ]);
  const stopped = running(t, { 'systemctl show --property ActiveState --value ssh': { stdout: 'inactive\n' } }, true);
  await setPasswords.run(stopped.ctx, { ssh_pwauth: true, system_info: { ssh_svcname: 'ssh' } });
  assert.deepEqual(restarts(stopped.commands()), ['systemctl show --property ActiveState --value ssh']);
});
