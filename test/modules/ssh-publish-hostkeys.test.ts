// ssh_publish_hostkeys: the ssh module hands the host's public keys (none blacklisted by default since 24.1) to the
// datasource, as cloud-init's cc_ssh does.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ssh } from '../../src/modules/ssh';
import { HOST_KEY_PUBLISH_BLACKLIST, publicHostKeys } from '../../src/modules/support/public-host-keys';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { HostKey } from '../../src/sources/datasource';
import { Logger } from '../../src/util/log';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

test('publicHostKeys: ssh_host_*_key.pub as (type, blob), blacklisted names and short files left out, in name order', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/ssh'), { recursive: true });
  writeFileSync(join(root, 'etc/ssh/ssh_host_rsa_key.pub'), 'ssh-rsa AAAArsa root@image\n');
  writeFileSync(join(root, 'etc/ssh/ssh_host_ed25519_key.pub'), 'ssh-ed25519 AAAAed\n');
  writeFileSync(join(root, 'etc/ssh/ssh_host_dsa_key.pub'), 'ssh-dss AAAAdsa\n');
  writeFileSync(join(root, 'etc/ssh/ssh_host_ecdsa_key.pub'), 'onlyonefield\n');
  writeFileSync(join(root, 'etc/ssh/ssh_host_rsa_key'), 'private, never published\n');
  writeFileSync(join(root, 'etc/ssh/ssh_host_rsa_key-cert.pub'), 'ssh-rsa-cert-v01@openssh.com AAAAcert\n');
  const platform = new LinuxPlatform({ root, log: new Logger().for('test') });
  assert.deepEqual(await publicHostKeys(platform, ['dsa']), [
    { type: 'ssh-ed25519', value: 'AAAAed' },
    { type: 'ssh-rsa', value: 'AAAArsa' },
  ]);
  // 25.1's default blacklist is empty: a DSA key on disk is published too (22.4 left it out).
  assert.deepEqual(
    (await publicHostKeys(platform, HOST_KEY_PUBLISH_BLACKLIST)).map((k) => k.type),
    ['ssh-dss', 'ssh-ed25519', 'ssh-rsa'],
  );
  assert.deepEqual(
    await publicHostKeys(new LinuxPlatform({ root: tempDir(t), log: new Logger().for('test') }), ['dsa']),
    [],
    'no /etc/ssh: nothing',
  );
});

test('ssh: host keys published to the datasource unless ssh_publish_hostkeys.enabled is false; a failure is a warning', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('debootstrap'),
      'needs root, unshare and debootstrap for the Debian rootfs',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-ssh-publish-'));
  const published: HostKey[][] = [];
  const ctx = moduleContext(root);
  ctx.publishHostKeys = async (keys) => void published.push(keys);
  await ssh.run(ctx, { ssh_genkeytypes: ['ed25519'] });
  const pub = readFileSync(join(root, 'etc/ssh/ssh_host_ed25519_key.pub'), 'utf8').split(' ');
  assert.deepEqual(published, [[{ type: 'ssh-ed25519', value: pub[1] }]]);

  await ssh.run(ctx, { ssh_genkeytypes: ['ed25519'], ssh_publish_hostkeys: { enabled: false } });
  assert.equal(published.length, 1, 'enabled: false publishes nothing');
  await ssh.run(ctx, { ssh_genkeytypes: ['ed25519'], ssh_publish_hostkeys: { blacklist: ['ed25519'] } });
  assert.deepEqual(published[1], [], 'a blacklisted type is left out');

  ctx.publishHostKeys = async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9'));
  await ssh.run(ctx, { ssh_genkeytypes: ['ed25519'] });
  assert.ok(
    ctx.problems.some((p) => /^WARNING: Publishing host keys failed! connect ECONNREFUSED/.test(p)),
    ctx.problems.join('\n'),
  );
});
