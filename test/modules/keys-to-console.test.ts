// keys_to_console on a sandbox root with host keys made by ssh-keygen, which is also the oracle for the lines.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { keysToConsoleModule, syslogTime } from '../../src/modules/keys-to-console';
import { sshKeygenListLine } from '../../src/keys/ssh-key-listing';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';

const KEYGEN_TYPES = [
  ['rsa', '3072'],
  ['rsa', '1024'],
  ['ecdsa', '256'],
  ['ecdsa', '384'],
  ['ecdsa', '521'],
  ['ed25519', ''],
  ['dsa', ''],
] as const;

/** ssh-keygen -l's line for FILE (the oracle). */
function keygenList(file: string): string {
  return spawnSync('ssh-keygen', ['-l', '-f', file], { encoding: 'utf8' }).stdout.trim();
}

function makeHostKey(root: string, type: string, bits: string, name = type): string {
  const file = join(root, 'etc/ssh', `ssh_host_${name}_key`);
  mkdirSync(join(root, 'etc/ssh'), { recursive: true });
  const r = spawnSync('ssh-keygen', [
    '-q',
    '-N',
    '',
    '-t',
    type,
    ...(bits ? ['-b', bits] : []),
    '-C',
    'root@parity one',
    '-f',
    file,
  ]);
  assert.equal(r.status, 0, String(r.stderr));
  return `${file}.pub`;
}

test("each key type's line is the one ssh-keygen -l prints", (t) => {
  if (!need(t, hasCommand('ssh-keygen'), 'ssh-keygen (openssh-client)')) return;
  const root = tempDir(t);
  for (const [type, bits] of KEYGEN_TYPES) {
    const pub = makeHostKey(root, type, bits, `${type}${bits}`);
    const line = readFileSync(pub, 'utf8').split('\n')[0] as string;
    assert.equal(sshKeygenListLine(line), keygenList(pub), `${type} ${bits}`);
    const bare = `${pub}.bare`;
    writeFileSync(bare, `${line.split(' ').slice(0, 2).join(' ')}\n`);
    assert.equal(sshKeygenListLine(readFileSync(bare, 'utf8')), keygenList(bare), `${type} ${bits} without a comment`);
  }
  assert.equal(sshKeygenListLine('ssh-rsa not-base64!'), undefined);
  assert.equal(
    sshKeygenListLine(
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKkTXG46bNRVyr6zAIrJbl0V/dtLSh+MuCGlNZtgc+6c x'.replace(
        'ssh-ed25519',
        'ssh-rsa',
      ),
    ),
    undefined,
    'a type word that disagrees with the blob',
  );
});

test('the console gets the fingerprints as logger --stderr prints them, then the keys, with the blacklists applied', async (t) => {
  if (!need(t, hasCommand('ssh-keygen'), 'ssh-keygen (openssh-client)')) return;
  const root = tempDir(t);
  const pubs = Object.fromEntries(
    ['rsa', 'dsa', 'ed25519'].map((type) => [type, makeHostKey(root, type, type === 'rsa' ? '2048' : '')]),
  );
  const ctx = dryContext(root);
  const before = syslogTime(new Date());
  await keysToConsoleModule.run(ctx, { ssh_fp_console_blacklist: ['ssh-rsa'], ssh_key_console_blacklist: ['ssh-dss'] });
  const out = ctx.outputText().replace(/^<14>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d /gm, '<14>TIME ');
  const text = (p: string) => readFileSync(p, 'utf8');
  assert.equal(
    out,
    [
      '<14>TIME cloud-init: #############################################################',
      '<14>TIME cloud-init: -----BEGIN SSH HOST KEY FINGERPRINTS-----',
      `<14>TIME cloud-init: ${keygenList(pubs.dsa as string)}`,
      `<14>TIME cloud-init: ${keygenList(pubs.ed25519 as string)}`,
      '<14>TIME cloud-init: -----END SSH HOST KEY FINGERPRINTS-----',
      '<14>TIME cloud-init: #############################################################',
      '-----BEGIN SSH HOST KEY KEYS-----',
      `${text(pubs.ed25519 as string)}${text(pubs.rsa as string)}-----END SSH HOST KEY KEYS-----`,
      '',
    ].join('\n'),
  );
  assert.match(before, /^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d$/);
  assert.deepEqual(ctx.commands(), [], 'no syslog socket in the sandbox: no logger');
  mkdirSync(join(root, 'dev'), { recursive: true });
  writeFileSync(join(root, 'dev/log'), '');
  const ctx2 = dryContext(root);
  await keysToConsoleModule.run(ctx2, {});
  assert.deepEqual(ctx2.commands(), ['logger -p user.info -t cloud-init']);
  // No key blacklisted by default, as 25.1 (22.4 left ssh-dss out).
  assert.ok(
    ctx2
      .outputText()
      .endsWith(
        `-----BEGIN SSH HOST KEY KEYS-----\n${text(pubs.dsa as string)}${text(pubs.ed25519 as string)}${text(pubs.rsa as string)}-----END SSH HOST KEY KEYS-----\n`,
      ),
    ctx2.outputText(),
  );
  const ctx3 = dryContext(root);
  await keysToConsoleModule.run(ctx3, { ssh: { emit_keys_to_console: false } });
  assert.equal(ctx3.outputText(), '');
  assert.deepEqual(ctx3.commands(), []);
});
