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
  assert.deepEqual(enableLinks('[Install]\nWantedBy=a.target\nWantedBy=\nWantedBy=b.target\n'), [
    { target: 'b.target', folder: 'wants' },
  ]);
  assert.deepEqual(enableLinks('[Unit]\nDescription=x\n'), []);
});

test('the units embedded in the binary are enabled into the targets kiln documents, each file with its mode', () => {
  const files = buildFacts.installFiles;
  const text = (name: string) => (files[name] as { text: string }).text;
  for (const unit of [
    'cloud-init-main.service',
    'cloud-init-local.service',
    'cloud-init-network.service',
    'cloud-config.service',
    'cloud-final.service',
  ]) {
    assert.deepEqual(enableLinks(text(unit)), [{ target: 'cloud-init.target', folder: 'wants' }], unit);
  }
  // As in cloud-init 25.1: the socket from cloud-config.target; the service started by its socket only.
  assert.deepEqual(enableLinks(text('cloud-init-hotplugd.socket')), [
    { target: 'cloud-config.target', folder: 'wants' },
  ]);
  assert.deepEqual(enableLinks(text('cloud-init-hotplugd.service')), []);
  assert.match(text('cloud-init-generator'), /^#!\/bin\/sh\n/);
  const modes = Object.fromEntries(Object.entries(files).map(([name, f]) => [name, f.mode.toString(8)]));
  assert.deepEqual(
    Object.entries(modes)
      .filter(([, m]) => m !== '644')
      .sort(),
    [
      ['cloud-init-generator', '755'],
      ['hook-hotplug', '755'],
    ],
  );
});
