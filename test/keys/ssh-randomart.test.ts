// Randomart and the keygen report against ssh-keygen's own output for keys it made itself.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { sha256Digest, sha256Fingerprint } from '../../src/keys/fingerprint';
import { keygenReport, randomart } from '../../src/keys/ssh-randomart';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

function keygen(args: string[]): string {
  const r = spawnSync('ssh-keygen', args, { encoding: 'utf8', env: { ...process.env, LANG: 'C' } });
  assert.equal(r.status, 0, `ssh-keygen ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

test('randomart matches ssh-keygen for keys ssh-keygen made itself, and the report reads like ssh-keygen', (t) => {
  if (!need(t, hasCommand('ssh-keygen'), 'ssh-keygen (openssh-client) is needed as the oracle')) return;
  const dir = tempDir(t);
  for (const [type, title] of [
    ['ed25519', 'ED25519 256'],
    ['ecdsa', 'ECDSA 256'],
    ['ed25519', 'ED25519 256'],
  ] as const) {
    const file = join(dir, `k-${type}-${Math.random().toString(16).slice(2)}`);
    const made = keygen(['-t', type, '-N', '', '-C', 'me@here', '-f', file]);
    const blob = Buffer.from(keygen(['-y', '-f', file]).split(' ')[1] as string, 'base64');
    const art = randomart(sha256Digest(blob), title);
    assert.equal(made, keygenReport(type, file, sha256Fingerprint(blob), 'me@here', art));
  }
});
