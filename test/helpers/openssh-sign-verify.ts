// OpenSSH as the oracle for a host key kiln made: ssh-keygen signs with the private key file kiln wrote and
// verifies the signature with the .pub line kiln wrote.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenSshKey } from '../../src/keys/openssh-key';
import { privateKeyFile, publicKeyLine } from '../../src/keys/openssh-key-files';

export function assertOpenSshSignsAndVerifies(dir: string, key: OpenSshKey): void {
  const priv = join(dir, `ssh_host_${key.type}_key`);
  writeFileSync(priv, privateKeyFile(key, 'root@kiln-test'));
  chmodSync(priv, 0o600);
  const pub = publicKeyLine(key, 'root@kiln-test');
  writeFileSync(`${priv}.pub`, pub);
  const message = join(dir, 'message');
  writeFileSync(message, 'boot\n');
  const signed = spawnSync('ssh-keygen', ['-Y', 'sign', '-f', priv, '-n', 'file', message], { encoding: 'utf8' });
  assert.equal(signed.status, 0, signed.stderr);
  writeFileSync(join(dir, 'allowed'), `host@kiln ${pub}`);
  const checked = spawnSync(
    'ssh-keygen',
    ['-Y', 'verify', '-f', join(dir, 'allowed'), '-I', 'host@kiln', '-n', 'file', '-s', `${message}.sig`],
    { input: 'boot\n', encoding: 'utf8' },
  );
  assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
}
