// cloud-init's json_dumps as kiln writes it: sorted keys, one-space indent, every non-ASCII character escaped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pythonJson, sortedJson } from '../../src/runner/sorted-json';
import { runCloudInitPython } from '../helpers/cloud-init-python';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';

const VALUE = { zeta: 'café ☕ 𝄞', alpha: [1, { b: null, a: 'ü\n\t"' }], mid: { '': true, é: 0.5 } };

test('pythonJson: keys sorted at every level, indent 1, non-ASCII as \\uXXXX (surrogate pairs beyond the BMP)', () => {
  const text = pythonJson(VALUE);
  assert.match(text, /^\{\n "alpha": \[\n  1,\n  \{\n   "a": "\\u00fc\\n\\t\\"",\n   "b": null\n  \}\n \],/);
  assert.ok(text.includes('"zeta": "caf\\u00e9 \\u2615 \\ud834\\udd1e"'), text);
  assert.ok(text.includes('"\\u00e9": 0.5'), text);
  assert.deepEqual(JSON.parse(text), VALUE);
  assert.equal(sortedJson(VALUE), `${text}\n`);
});

test("pythonJson is byte for byte Python's json.dumps(indent=1, sort_keys=True, separators=(',', ': ')), in Debian 13's Python", (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the trixie rootfs',
    )
  )
    return;
  const script =
    "import json,sys; sys.stdout.write(json.dumps(json.loads(sys.argv[1]), indent=1, sort_keys=True, separators=(',', ': ')))";
  assert.equal(pythonJson(VALUE), runCloudInitPython(ensureDebianRootfs('trixie'), script, JSON.stringify(VALUE)));
});
