import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildFacts } from '../../src/build-info';
import { enableLinks } from '../../src/install/unit-install-section';

test('enableLinks reads WantedBy= and RequiredBy= of [Install] only, lists split on spaces, an empty value resets', () => {
  const unit = [
    '[Unit]',
    'WantedBy=not-here.target',
    '[Install]',
    '# a comment',
    'WantedBy=a.target b.target',
    'WantedBy=c.target',
    'RequiredBy=d.service',
    '[Service]',
    'WantedBy=nor-here.target',
  ].join('\n');
  assert.deepEqual(enableLinks(unit), [
    { target: 'a.target', folder: 'wants' },
    { target: 'b.target', folder: 'wants' },
    { target: 'c.target', folder: 'wants' },
    { target: 'd.service', folder: 'requires' },
  ]);
  assert.deepEqual(enableLinks('[Install]\nWantedBy=a.target\nWantedBy=\nWantedBy=b.target\n'), [{ target: 'b.target', folder: 'wants' }]);
  assert.deepEqual(enableLinks('[Unit]\nDescription=x\n'), []);
});

test('the units embedded in the binary are enabled into the targets kiln documents', () => {
  const files = buildFacts.installFiles;
  for (const unit of ['cloud-init-local.service', 'cloud-init.service', 'cloud-config.service', 'cloud-final.service']) {
    assert.deepEqual(enableLinks(files[unit] as string), [{ target: 'cloud-init.target', folder: 'wants' }], unit);
  }
  assert.deepEqual(enableLinks(files['kiln-all-stages.service'] as string), [{ target: 'multi-user.target', folder: 'wants' }]);
  assert.match(files['cloud-init-generator'] as string, /^#!\/bin\/sh\n/);
});
