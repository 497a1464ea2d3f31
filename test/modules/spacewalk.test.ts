// spacewalk: rhn-setup installed, rhn-profile-sync asked, and rhnreg_ks's argv exactly as cloud-init 22.4 builds it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spacewalkModule } from '../../src/modules/spacewalk';
import type { RunResult } from '../../src/platform/platform';
import { tempDir } from '../helpers/temp';
import { dryContext, type DryContext } from './late-context';

const RHEL = { name: 'rhel', family: 'redhat', version: '9' } as const;

/** A dry context whose `rhn-profile-sync` exits with SYNC_EXIT (0: registered, 1: not registered). */
function spacewalkContext(root: string, syncExit: number): DryContext {
  const ctx = dryContext(root, { distro: RHEL, instance: { localHostname: 'web1.example.com' } });
  const run = ctx.dry.run.bind(ctx.dry);
  ctx.dry.run = async (cmd, opts): Promise<RunResult> => {
    const r = await run(cmd, opts);
    return Array.isArray(cmd) && cmd[0] === 'rhn-profile-sync' ? { ...r, code: syncExit } : r;
  };
  return ctx;
}

test('spacewalk on an unregistered RHEL installs rhn-setup and runs rhnreg_ks with the fqdn as profile', async (t) => {
  const ctx = spacewalkContext(tempDir(t), 1);
  await spacewalkModule.run(ctx, {
    spacewalk: { server: 'sw.example.com', proxy: 'proxy.example.com:3128', activation_key: 'KEY-1' },
  });
  const cmds = ctx.commands();
  assert.match(cmds[0] ?? '', /^(dnf|yum) .*install rhn-setup$/);
  assert.deepEqual(cmds.slice(1), [
    'rhn-profile-sync --verbose',
    'rhnreg_ks --serverUrl https://sw.example.com/XMLRPC --profilename web1.example.com --proxy proxy.example.com:3128 --sslCACert /usr/share/rhn/RHN-ORG-TRUSTED-SSL-CERT --activationkey KEY-1',
  ]);
});

test('spacewalk: registered already, no server, or an unexpected rhn-profile-sync exit', async (t) => {
  const root = tempDir(t);
  const done = spacewalkContext(root, 0);
  await spacewalkModule.run(done, { spacewalk: { server: 'sw.example.com' } });
  assert.deepEqual(done.commands().slice(1), ['rhn-profile-sync --verbose']);
  const noServer = spacewalkContext(root, 1);
  await spacewalkModule.run(noServer, { spacewalk: { proxy: 'p' } });
  assert.deepEqual(noServer.dry.effects, []);
  await assert.rejects(
    spacewalkModule.run(spacewalkContext(root, 2), { spacewalk: { server: 's' } }),
    /'rhn-profile-sync --verbose' exited with code 2/,
  );
});
