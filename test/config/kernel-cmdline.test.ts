import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cloudConfigText, parseKernelCmdline } from '../../src/config/kernel-cmdline';

test('cc: … end_cc blocks are joined, \\n escapes become new lines', () => {
  assert.equal(cloudConfigText('root=/dev/sda ro'), undefined);
  assert.equal(
    cloudConfigText('ro cc: ssh_pwauth: true end_cc quiet cc:runcmd: [ls] end_cc'),
    'ssh_pwauth: true\nruncmd: [ls]',
  );
  const k = parseKernelCmdline('ro cc: a: 1\\nb: [2, 3] end_cc');
  assert.deepEqual(k.cloudConfig, { a: 1, b: [2, 3] });
  assert.throws(() => parseKernelCmdline('cc: a: [ end_cc'), /kernel command line/);
});

test('cloud-init=disabled and cloud-init=enabled', () => {
  assert.equal(parseKernelCmdline('ro cloud-init=disabled').disabled, true);
  assert.equal(parseKernelCmdline('ro cloud-init=enabled').enabled, true);
  assert.equal(parseKernelCmdline('ro').disabled, false);
});
