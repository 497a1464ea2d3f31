// DSA host keys from kiln's own parameters: OpenSSL finds p and q prime and g of order q (`openssl pkey -check`),
// the sizes are what OpenSSH insists on, and OpenSSH signs and verifies with the host key file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { checkPrimeSync, createPrivateKey, generatePrimeSync } from 'node:crypto';
import { test } from 'node:test';
import { dsaGenerator, dsaPkcs8, generateDsaDer } from '../../src/modules/dsa-key';
import { generateOpenSshKey } from '../../src/modules/openssh-key';
import { derIntegers } from '../../src/util/der-integers';
import { bigintFromBytes } from '../../src/util/bigint-bytes';
import { powMod } from '../helpers/pow-mod';
import { hasCommand, need } from '../helpers/requirements';
import { assertOpenSshSignsAndVerifies } from '../helpers/openssh-sign-verify';
import { tempDir } from '../helpers/temp';

test('a DSA key: p of 1024 bits and q of 160, both prime, q divides p - 1, g has order q, y = g^x; OpenSSL calls it valid', async (t) => {
  const canAsk = need(t, hasCommand('openssl'), 'openssl is needed as the second oracle');
  for (let i = 0; i < 3; i++) {
    const { spki, pkcs8 } = await generateDsaDer();
    const [p, q, g, y] = derIntegers(spki).map(bigintFromBytes) as [bigint, bigint, bigint, bigint];
    const x = bigintFromBytes(derIntegers(pkcs8)[4] as Buffer);
    assert.equal(p.toString(2).length, 1024);
    assert.equal(q.toString(2).length, 160);
    assert.equal(checkPrimeSync(p) && checkPrimeSync(q), true);
    assert.equal((p - 1n) % q, 0n);
    assert.ok(g > 1n && g < p - 1n);
    assert.equal(powMod(g, q, p), 1n);
    assert.ok(x >= 1n && x < q);
    assert.equal(powMod(g, x, p), y);
    if (canAsk) {
      const pem = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' });
      const r = spawnSync('openssl', ['pkey', '-check', '-noout'], { input: pem, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.match(`${r.stdout}${r.stderr}`, /Key is valid/);
    }
  }
});

test('the generator: h^((p-1)/q) for the first h that does not give 1; a q that does not divide p - 1 is refused by OpenSSL', () => {
  // p = 2·3·q + 1 with small numbers is below the 512-bit floor of the modular power: a real pair instead.
  const q = generatePrimeSync(160, { bigint: true });
  const p = generatePrimeSync(1024, { bigint: true, add: 2n * q, rem: 1n });
  const g = dsaGenerator(p, q);
  assert.equal(g, powMod(2n, (p - 1n) / q, p) === 1n ? powMod(3n, (p - 1n) / q, p) : powMod(2n, (p - 1n) / q, p));
  const unrelated = generatePrimeSync(160, { bigint: true });
  const bad = dsaPkcs8(p, unrelated, g, 12345n);
  const pem = createPrivateKey({ key: bad, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' });
  if (hasCommand('openssl')) assert.notEqual(spawnSync('openssl', ['pkey', '-check', '-noout'], { input: pem, encoding: 'utf8' }).status, 0);
});

test('OpenSSH signs with the DSA host key file and verifies the signature with its .pub line', async (t) => {
  if (!need(t, hasCommand('ssh-keygen'), 'ssh-keygen (openssh-client) is needed as the oracle')) return;
  assertOpenSshSignsAndVerifies(tempDir(t), await generateOpenSshKey('dsa'));
});
